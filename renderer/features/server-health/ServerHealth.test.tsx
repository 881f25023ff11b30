// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeCoreClient } from '../../test/fake-client.js';
import { installLayoutStubs, renderWithClient } from '../../test/render.js';
import { errorRows, ServerHealth, timelineSegments } from './ServerHealth.js';

beforeAll(installLayoutStubs);
afterEach(cleanup);

describe('Server health', () => {
  it('shows every apiserver with its state, release and discovery', async () => {
    renderWithClient(<ServerHealth />, new FakeCoreClient());
    const sim1 = await screen.findByRole('article', { name: 'apiserver sim-1' });
    expect(sim1.textContent).toContain('v1.37.0-dev');
    expect(sim1.textContent).toContain('ready');
    const sim3 = screen.getByRole('article', { name: 'apiserver sim-3' });
    expect(sim3.textContent).toContain('down');
    expect(sim3.textContent).toContain('stale');
  });

  it('shows each server by its host name, the lease name beside it, in the cards, the timeline and the charts', async () => {
    const client = new FakeCoreClient();
    client.showHostNames({ 'sim-1': 'cp-1', 'sim-2': 'cp-1 (q3ovcb)', 'sim-3': 'cp-3' });
    renderWithClient(<ServerHealth />, client);
    const cp1 = await screen.findByRole('article', { name: 'apiserver cp-1' });
    expect(within(cp1).getByRole('heading', { level: 3 }).textContent).toBe('cp-1');
    expect(cp1.querySelector('.server-id')?.textContent).toBe('sim-1');
    expect(screen.getByRole('article', { name: 'apiserver cp-1 (q3ovcb)' }).querySelector('.server-id')?.textContent).toBe('sim-2');
    const timeline = await screen.findByRole('list', { name: /Health and release per apiserver/ });
    expect([...timeline.querySelectorAll('.timeline-name')].map((n) => [n.textContent, n.getAttribute('title')])).toEqual([
      ['cp-1', 'sim-1'],
      ['cp-1 (q3ovcb)', 'sim-2'],
      ['cp-3', 'sim-3'],
    ]);
    expect(screen.getByRole('img', { name: /^Failed requests per apiserver/ }).getAttribute('aria-label')).toBe(
      'Failed requests per apiserver per 5 seconds: cp-1 9, cp-1 (q3ovcb) 0, cp-3 0',
    );
  });

  it('a server shown by its own name has no second name beside it', async () => {
    renderWithClient(<ServerHealth />, new FakeCoreClient());
    const sim1 = await screen.findByRole('article', { name: 'apiserver sim-1' });
    expect(sim1.querySelector('.server-id')).toBeNull();
  });

  it('draws a timeline segment per health and release change', async () => {
    renderWithClient(<ServerHealth />, new FakeCoreClient());
    const timeline = await screen.findByRole('list', { name: /Health and release per apiserver/ });
    const rows = within(timeline).getAllByRole('listitem');
    expect(rows[0]!.querySelectorAll('.seg')).toHaveLength(4);
    expect(rows[0]!.querySelector('.seg:last-child')?.textContent).toBe('v1.37');
    expect(rows[0]!.querySelector('.seg-draining')).toBeTruthy();
  });

  it('segments: consecutive equal samples merge; the last runs to now', () => {
    const segs = timelineSegments(
      [
        { at: 1, health: 'ready', gitVersion: 'v1.36.0-dev' },
        { at: 2, health: 'ready', gitVersion: 'v1.36.0-dev' },
        { at: 3, health: 'unreachable' },
        { at: 4, health: 'ready', gitVersion: 'v1.37.0-dev' },
      ],
      10,
    );
    expect(segs).toEqual([
      { from: 1, to: 3, health: 'ready', release: 'v1.36' },
      { from: 3, to: 4, health: 'unreachable', release: 'v1.36' },
      { from: 4, to: 10, health: 'ready', release: 'v1.37' },
    ]);
  });

  it('charts failed requests per server, totals in its label', async () => {
    renderWithClient(<ServerHealth />, new FakeCoreClient());
    expect((await screen.findByRole('img', { name: /^Failed requests per apiserver/ })).getAttribute('aria-label')).toBe(
      'Failed requests per apiserver per 5 seconds: sim-1 9, sim-2 0, sim-3 0',
    );
  });

  it('says so when no request has failed', async () => {
    const client = new FakeCoreClient();
    client.history = { servers: client.history.servers.map((s) => ({ name: s.name, samples: s.samples })) };
    renderWithClient(<ServerHealth />, client);
    expect(await screen.findByText('No request through the port has failed at any apiserver.')).toBeVisible();
  });

  it('error rows: one per bucket, a column per server that failed in it', () => {
    expect(
      errorRows([
        {
          name: 'a',
          samples: [],
          errors: [
            { at: 5_000, count: 1 },
            { at: 10_000, count: 2 },
          ],
        },
        {
          name: 'b',
          samples: [],
          errors: [
            { at: 0, count: 4 },
            { at: 10_000, count: 3 },
          ],
        },
        { name: 'c', samples: [] },
      ]),
    ).toEqual([
      { at: 0, b: 4 },
      { at: 5_000, a: 1 },
      { at: 10_000, a: 2, b: 3 },
    ]);
  });

  it('shows an error when the core cannot be reached', async () => {
    const client = new FakeCoreClient();
    client.failWith = 'core went away';
    renderWithClient(<ServerHealth />, client);
    expect((await screen.findAllByRole('alert'))[0]!.textContent).toContain('core went away');
  });
});
