// @vitest-environment jsdom
// Exporting the live state as a file, and comparing two snapshots.
import '@testing-library/jest-dom/vitest';
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SnapshotDiff } from '../../../proxy-core/contract/index.js';
import { FakeCoreClient } from '../../test/fake-client.js';
import { installLayoutStubs } from '../../test/render.js';
import { sampleSnapshot, TAKEN_AT } from '../../test/snapshot.js';
import { formatClock } from '../../shared/ui/format.js';
import { openSnapshotsTab } from '../../test/snapshots-tab.js';

beforeAll(installLayoutStubs);
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('Snapshots: export and compare', () => {
  it('exports the live state as a JSON file, from the screen and from the top bar', async () => {
    const client = new FakeCoreClient();
    client.snapshot = sampleSnapshot();
    const created = vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:snapshot');
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
    const downloads: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      downloads.push(this.download);
    });
    await openSnapshotsTab(client);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Export current state' })));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Export snapshot' })));
    expect(downloads).toEqual(['peerscope-snapshot-2026-11-23T08-00-00-000Z.json', 'peerscope-snapshot-2026-11-23T08-00-00-000Z.json']);
    expect(created).toHaveBeenCalledTimes(2);
    const blob = created.mock.calls[0]![0] as Blob;
    expect(JSON.parse(await blob.text())).toEqual(client.snapshot);
  });

  it('compares a kept live state with the live state taken now, and shows what changed', async () => {
    const client = new FakeCoreClient();
    const before = sampleSnapshot();
    client.snapshot = before;
    await openSnapshotsTab(client);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Keep for comparison' })));
    const kept = `live state at ${formatClock(Date.parse(TAKEN_AT))}`;
    await screen.findByRole('rowheader', { name: new RegExp(kept) });
    const diff: SnapshotDiff = {
      servers: {
        added: [],
        removed: [],
        upgraded: [{ name: 'sim-2', from: 'v1.36.0-dev', to: 'v1.37.0-dev' }],
        healthChanged: [{ name: 'sim-2', from: 'draining', to: 'ready' }],
      },
      gvrs: [
        {
          server: 'sim-2',
          gained: ['certificates.k8s.io/v1/clustertrustbundles', 'recorded.example.com/v1/widgets'],
          lost: ['certificates.k8s.io/v1alpha1/clustertrustbundles'],
        },
      ],
      skew: { became: [], resolved: ['certificates.k8s.io/v1/clustertrustbundles'] },
      outcomeRates: [
        {
          gvr: 'certificates.k8s.io/v1/clustertrustbundles',
          outcome: 'rerouted',
          before: 0.5,
          after: 0,
          requestsBefore: 20,
          requestsAfter: 30,
        },
        { gvr: 'recorded.example.com/v1/widgets', outcome: 'notfound', before: 0, after: 0.25, requestsBefore: 4, requestsAfter: 8 },
      ],
    };
    client.diff = diff;
    client.snapshot = sampleSnapshot({ takenAt: '2026-11-23T08:05:00.000Z' });
    const form = screen.getByRole('form', { name: 'Compare two snapshots' });
    expect((within(form).getByLabelText('Before') as HTMLSelectElement).selectedOptions[0]!.textContent).toContain(kept);
    expect((within(form).getByLabelText('After') as HTMLSelectElement).value).toBe('live-now');
    await act(async () => fireEvent.click(within(form).getByRole('button', { name: 'Compare' })));

    const result = await screen.findByRole('region', { name: 'Comparison' });
    expect(client.compared).toHaveLength(1);
    expect(client.compared[0]!.before).toEqual(before);
    expect(client.compared[0]!.after.takenAt).toBe('2026-11-23T08:05:00.000Z');
    const summary = within(result).getByRole('list', { name: 'Summary of changes' });
    expect(
      within(summary)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['1 server upgraded', '1 health change', '2 GVRs gained', '1 GVR lost', '1 no longer skewed', '2 outcome shares changed']);
    const upgraded = within(result).getByRole('row', { name: /sim-2 upgraded/ });
    expect(upgraded.textContent).toContain('v1.36.0-dev → v1.37.0-dev');
    expect(
      within(within(result).getByRole('list', { name: 'GVRs sim-2 gained' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['+ certificates.k8s.io/v1/clustertrustbundles', '+ recorded.example.com/v1/widgets']);
    expect(within(result).getByRole('list', { name: 'GVRs sim-2 lost' }).textContent).toContain(
      'certificates.k8s.io/v1alpha1/clustertrustbundles',
    );
    expect(within(result).getByRole('list', { name: 'GVRs no longer skewed' }).textContent).toContain(
      'certificates.k8s.io/v1/clustertrustbundles',
    );
    // Largest change first; more 404s stand out.
    const rates = within(result)
      .getAllByRole('row')
      .filter((r) => /pt/.test(r.textContent ?? ''));
    expect(rates.map((r) => r.textContent)).toEqual([
      'certificates.k8s.io/v1/clustertrustbundles rerouted50.0%0.0%−50.0 pt20 → 30',
      'recorded.example.com/v1/widgets 404 not found0.0%25.0%+25.0 pt4 → 8',
    ]);
    // The live state taken for the comparison is kept too, to be viewed or compared again.
    expect(screen.getAllByRole('rowheader', { name: /live state at/ })).toHaveLength(2);

    // The same snapshot on both sides: no differences.
    client.diff = {
      servers: { added: [], removed: [], upgraded: [], healthChanged: [] },
      gvrs: [],
      skew: { became: [], resolved: [] },
      outcomeRates: [],
    };
    await act(async () => fireEvent.click(within(form).getByRole('button', { name: 'Compare' })));
    expect(await screen.findByText(/No differences: the same servers/)).toBeVisible();
  });

  it('names the servers of a comparison by the host names the snapshots recorded, a removed one by its last', async () => {
    const client = new FakeCoreClient();
    const withHosts = (takenAt: string, hosts: Record<string, string>) => {
      const s = sampleSnapshot({ takenAt });
      return { ...s, servers: s.servers.map((x) => ({ ...x, source: 'lease' as const, displayName: hosts[x.name] ?? x.name })) };
    };
    client.snapshot = withHosts(TAKEN_AT, { 'sim-1': 'cp-1', 'sim-2': 'cp-2 (old host)' });
    await openSnapshotsTab(client);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Keep for comparison' })));
    await screen.findByRole('rowheader', { name: /live state at/ });
    client.diff = {
      servers: { added: [], removed: ['sim-1'], upgraded: [{ name: 'sim-2', from: 'v1.36.0-dev', to: 'v1.37.0-dev' }], healthChanged: [] },
      gvrs: [{ server: 'sim-2', gained: ['recorded.example.com/v1/widgets'], lost: [] }],
      skew: { became: [], resolved: [] },
      outcomeRates: [],
    };
    const after = withHosts('2026-11-23T08:05:00.000Z', { 'sim-2': 'cp-2' });
    client.snapshot = { ...after, servers: after.servers.filter((s) => s.name === 'sim-2') };
    const form = screen.getByRole('form', { name: 'Compare two snapshots' });
    await act(async () => fireEvent.click(within(form).getByRole('button', { name: 'Compare' })));
    const result = await screen.findByRole('region', { name: 'Comparison' });
    expect(within(result).getByRole('row', { name: /^cp-2 upgraded/ }).textContent).toContain('v1.36.0-dev → v1.37.0-dev');
    expect(within(result).getByRole('row', { name: /^cp-1 removed/ })).toBeVisible();
    expect(within(result).getByRole('list', { name: 'GVRs cp-2 gained' }).textContent).toContain('recorded.example.com/v1/widgets');
  });

  it('shows why a comparison failed', async () => {
    const client = new FakeCoreClient();
    client.snapshot = sampleSnapshot();
    await openSnapshotsTab(client);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Keep for comparison' })));
    await screen.findByRole('rowheader', { name: /live state at/ });
    client.failWith = 'the core went away';
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Compare' })));
    expect((await screen.findByRole('alert')).textContent).toContain('the core went away');
  });
});
