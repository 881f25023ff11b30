// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeCoreClient, routingEvent, totals } from '../../test/fake-client.js';
import { installLayoutStubs, renderWithClient } from '../../test/render.js';
import { LiveRouting } from './LiveRouting.js';
import { addToSeries, MAX_ROWS, RATE_SECONDS } from './routing-feed.js';

beforeAll(installLayoutStubs);
afterEach(cleanup);

const streamRows = () => document.querySelectorAll('.stream-scroll [role=row]');

function batch(events: ReturnType<typeof routingEvent>[]) {
  const counts = totals();
  for (const e of events) counts[e.outcome]++;
  return { type: 'routing' as const, events, counts, count: events.length, windowMs: 100, lastSeq: events.at(-1)!.seq };
}

describe('Live routing', () => {
  it('shows recent requests, then a rerouted one as it arrives, newest first', async () => {
    const client = new FakeCoreClient();
    renderWithClient(<LiveRouting />, client);
    await screen.findByRole('table', { name: 'Requests, newest first' });
    expect(streamRows()).toHaveLength(2);
    act(() =>
      client.emit(
        batch([
          routingEvent(3, {
            outcome: 'rerouted',
            handling: 'sim-2',
            answeredBy: 'sim-1',
            path: '/apis/certificates.k8s.io/v1/clustertrustbundles',
          }),
        ]),
      ),
    );
    const first = streamRows()[0]!;
    expect(first.getAttribute('data-outcome')).toBe('rerouted');
    expect(first.textContent).toContain('→ sim-1');
    expect(first.textContent).toContain('kubectl');
  });

  it('names the handling and answering servers by their host names, the identities in the titles', async () => {
    const client = new FakeCoreClient();
    client.showHostNames({ 'sim-1': 'cp-1', 'sim-2': 'cp-2', 'sim-3': 'cp-3' });
    renderWithClient(<LiveRouting />, client);
    await screen.findByRole('table', { name: 'Requests, newest first' });
    // The host names come with the overview: the rows name servers once it has arrived.
    await waitFor(() => expect(streamRows()[0]!.textContent).toContain('cp-2'));
    act(() => client.emit(batch([routingEvent(3, { outcome: 'rerouted', handling: 'sim-2', answeredBy: 'sim-1' })])));
    const cells = [...streamRows()[0]!.querySelectorAll('[role=cell]')];
    // time, client, request, handling, outcome, answered by, …
    expect(cells.slice(3, 6).map((c) => [c.textContent, c.getAttribute('title')])).toEqual([
      ['cp-2', 'sim-2'],
      ['→ cp-1', null],
      ['cp-1', 'sim-1'],
    ]);
    expect(streamRows()[0]!.textContent).not.toContain('sim-');
  });

  it('pauses: the table holds still and counts what arrives; resuming shows it all', async () => {
    const client = new FakeCoreClient();
    renderWithClient(<LiveRouting />, client);
    await screen.findByRole('table', { name: 'Requests, newest first' });
    fireEvent.click(screen.getByRole('button', { name: 'Pause stream' }));
    act(() => client.emit(batch([routingEvent(3), routingEvent(4)])));
    expect(streamRows()).toHaveLength(2);
    expect(screen.getByText('2 new while paused')).toBeVisible();
    fireEvent.click(screen.getByRole('button', { name: 'Resume stream' }));
    expect(streamRows()).toHaveLength(4);
    // Batches reach the screen at most every NOTIFY_MS.
    act(() => client.emit(batch([routingEvent(5)])));
    await waitFor(() => expect(streamRows()).toHaveLength(5));
  });

  it('filters by outcome', async () => {
    const client = new FakeCoreClient();
    renderWithClient(<LiveRouting />, client);
    await screen.findByRole('table', { name: 'Requests, newest first' });
    fireEvent.click(screen.getByRole('button', { name: /^local/ }));
    expect(screen.getByRole('button', { name: /^local/ }).getAttribute('aria-pressed')).toBe('false');
    expect([...streamRows()].map((r) => r.getAttribute('data-outcome'))).toEqual(['notfound']);
  });

  it('keeps a bounded buffer', async () => {
    const client = new FakeCoreClient();
    client.events = [];
    renderWithClient(<LiveRouting />, client);
    await screen.findByText(/No request has gone through/);
    act(() => client.emit(batch(Array.from({ length: MAX_ROWS + 500 }, (_, i) => routingEvent(i + 1)))));
    expect(screen.getByRole('button', { name: /^local/ }).textContent).toContain(String(MAX_ROWS));
  });

  it('says so when there are no requests yet, and unsubscribes on unmount', async () => {
    const client = new FakeCoreClient();
    client.events = [];
    const view = renderWithClient(<LiveRouting />, client);
    await screen.findByText(/No request has gone through/);
    expect(client.subscriberCount).toBe(1);
    view.unmount();
    expect(client.subscriberCount).toBe(0);
  });

  it('rate series: per-second buckets, gaps filled with zero, bounded', () => {
    let series = addToSeries([], 10_000, totals({ local: 3 }));
    series = addToSeries(series, 10_500, totals({ local: 2, rerouted: 1 }));
    series = addToSeries(series, 13_100, totals({ notfound: 1 }));
    expect(series.map((p) => [p.t, p.local, p.rerouted, p.notfound])).toEqual([
      [10, 5, 1, 0],
      [11, 0, 0, 0],
      [12, 0, 0, 0],
      [13, 0, 0, 1],
    ]);
    series = addToSeries(series, 10_000_000, totals({ local: 1 }));
    expect(series.length).toBeLessThanOrEqual(RATE_SECONDS);
  });
});
