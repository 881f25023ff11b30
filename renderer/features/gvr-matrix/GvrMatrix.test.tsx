// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clusterEvent, FakeCoreClient } from '../../test/fake-client.js';
import { installLayoutStubs, renderWithClient } from '../../test/render.js';
import { cellState, GvrMatrix, matrixItems } from './GvrMatrix.js';

beforeAll(installLayoutStubs);
afterEach(cleanup);

const rowTexts = () => screen.queryAllByRole('rowheader').map((r) => r.textContent);

describe('GVR matrix', () => {
  it('lists skewed GVRs first, grouped by API group, with a cell per server', async () => {
    renderWithClient(<GvrMatrix />, new FakeCoreClient());
    await screen.findByText(/2 skewed/);
    // Rows keep the core's order within each section.
    expect(rowTexts()).toEqual([
      'certificates.k8s.io/v1alpha1/clustertrustbundles',
      'certificates.k8s.io/v1/clustertrustbundles',
      'v1/pods',
      'apps/v1/deployments',
    ]);
    const headers = screen.getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers[1]).toContain('sim-1');
    expect(headers[1]).toContain('v1.37');
    expect(headers[3]).toContain('down');
    const v1 = screen.getAllByRole('row').find((r) => r.getAttribute('data-gvr') === 'certificates.k8s.io/v1/clustertrustbundles')!;
    expect(
      within(v1)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['served', 'not served', 'server down']);
    expect(v1.className).toContain('skewed');
  });

  it('heads each column with the host name, the identity in its title; the cells still follow the identities', async () => {
    const client = new FakeCoreClient();
    client.showHostNames({ 'sim-1': 'cp-1', 'sim-2': 'cp-2', 'sim-3': 'cp-3' });
    renderWithClient(<GvrMatrix />, client);
    await screen.findByText(/2 skewed/);
    await waitFor(() => expect(document.querySelector('.col-name')?.textContent).toBe('cp-1'));
    const names = [...document.querySelectorAll('.col-name')];
    expect(names.map((n) => [n.textContent, n.getAttribute('title')])).toEqual([
      ['cp-1', 'sim-1'],
      ['cp-2', 'sim-2'],
      ['cp-3', 'sim-3'],
    ]);
    const v1 = screen.getAllByRole('row').find((r) => r.getAttribute('data-gvr') === 'certificates.k8s.io/v1/clustertrustbundles')!;
    expect(
      within(v1)
        .getAllByRole('cell')
        .map((c) => [c.textContent, c.getAttribute('title')]),
    ).toEqual([
      ['served', 'cp-1: served'],
      ['not served', 'cp-2: not served'],
      ['server down', 'cp-3: server down'],
    ]);
  });

  it('with the cluster source, says per cell what each server answered per minute, false 404s apart', async () => {
    const client = new FakeCoreClient();
    client.clusterEvents = [clusterEvent(1)];
    const ctb = { group: 'certificates.k8s.io', version: 'v1', resource: 'clustertrustbundles' };
    // Counted over 30 s: per minute, twice as many.
    client.clusterGvrRates = {
      seconds: 30,
      cells: [
        { server: 'sim-1', ...ctb, requests: 6, false404s: 0 },
        { server: 'sim-2', ...ctb, requests: 2, false404s: 2 },
      ],
    };
    renderWithClient(<GvrMatrix />, client);
    const row = await screen.findByRole('row', { name: /^certificates\.k8s\.io\/v1\/clustertrustbundles/ });
    await within(row).findByText('12/min');
    const cells = within(row).getAllByRole('cell');
    expect(cells.map((c) => c.textContent)).toEqual(['served12/min', 'not served4/min4 false 404', 'server down']);
    expect(cells[1]!.getAttribute('title')).toBe('sim-2: not served; answered 4/min · 4 false 404/min');
    expect(screen.getByRole('list', { name: 'Legend' }).textContent).toContain('the last 30 s, per minute');
  });

  it('shows no per-cell traffic when the core follows no audit log', async () => {
    const client = new FakeCoreClient();
    renderWithClient(<GvrMatrix />, client);
    await screen.findByText(/2 skewed/);
    expect(document.querySelector('.cell-rate')).toBeNull();
    expect(client.calls).not.toContain('getClusterGvrRates');
  });

  it('filters by kind and by search text', async () => {
    renderWithClient(<GvrMatrix />, new FakeCoreClient());
    await screen.findByText(/2 skewed/);
    fireEvent.change(screen.getByLabelText('Show'), { target: { value: 'skewed' } });
    expect(rowTexts()).toHaveLength(2);
    fireEvent.change(screen.getByLabelText('Show'), { target: { value: 'all' } });
    fireEvent.change(screen.getByLabelText('Search'), { target: { value: 'deploy' } });
    await screen.findByText((_, el) => el?.className === 'summary' && /Showing 1 of 4/.test(el.textContent ?? ''));
    expect(rowTexts()).toEqual(['apps/v1/deployments']);
    fireEvent.change(screen.getByLabelText('Search'), { target: { value: 'nothing-like-this' } });
    await screen.findByText(/No GVR matches/);
  });

  it('shows loading, then an error with a retry', async () => {
    const client = new FakeCoreClient();
    client.failWith = 'connection refused';
    renderWithClient(<GvrMatrix />, client);
    expect(screen.getByRole('status').textContent).toContain('Loading');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('connection refused');
    client.failWith = undefined;
    await act(async () => fireEvent.click(within(alert).getByRole('button', { name: 'Retry' })));
    await screen.findByText(/2 skewed/);
  });

  it('says so when no discovery has been read yet', async () => {
    const client = new FakeCoreClient();
    client.routeTable = { ...client.routeTable, rows: [], skewedCount: 0 };
    renderWithClient(<GvrMatrix />, client);
    await screen.findByText(/No discovery has been read yet/);
  });

  it('renders only a window of rows for thousands of GVRs (CRDs)', async () => {
    const client = new FakeCoreClient();
    const crds = Array.from({ length: 5_000 }, (_, i) => ({
      group: `crd${Math.floor(i / 10)}.example.com`,
      version: 'v1',
      resource: `widgets${i}`,
      servers: ['sim-1', 'sim-2', 'sim-3'],
    }));
    client.routeTable = { ...client.routeTable, rows: [...client.routeTable.rows, ...crds] };
    renderWithClient(<GvrMatrix />, client);
    await screen.findByText(/Showing/);
    expect(screen.getByText(/Showing/).textContent).toContain('5004 of 5004 GVRs');
    const rendered = screen.getAllByRole('row').length;
    expect(rendered).toBeGreaterThan(10);
    expect(rendered).toBeLessThan(100);
  });

  it('cell states: down and stale win over served', () => {
    const row = { group: 'apps', version: 'v1', resource: 'deployments', servers: ['a'] };
    expect(cellState({ name: 'a', health: 'ready', discovery: 'ok' }, row)).toBe('served');
    expect(cellState({ name: 'b', health: 'ready', discovery: 'ok' }, row)).toBe('missing');
    expect(cellState({ name: 'a', health: 'unreachable', discovery: 'stale' }, row)).toBe('down');
    expect(cellState({ name: 'a', health: 'gone', discovery: 'stale' }, row)).toBe('gone');
    expect(cellState({ name: 'a', health: 'ready', discovery: 'stale' }, row)).toBe('stale');
    expect(cellState({ name: 'a', health: 'unknown', discovery: 'none' }, row)).toBe('unknown');
  });

  it('a server never read does not make every row skewed', () => {
    const view = {
      generation: 0,
      skewedCount: 0,
      columns: [
        { name: 'a', health: 'ready' as const, discovery: 'ok' as const },
        { name: 'b', health: 'unknown' as const, discovery: 'none' as const },
      ],
      rows: [{ group: '', version: 'v1', resource: 'pods', servers: ['a'] }],
    };
    expect(matrixItems(view, 'skewed', '').shown).toBe(0);
  });
});
