// @vitest-environment jsdom
// Opening snapshot files offline: every screen shows the recording, read-only; bad files are named.
import '@testing-library/jest-dom/vitest';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PeerscopeError } from '../../../proxy-core/contract/index.js';
import { App } from '../../app/App.js';
import { FakeCoreClient } from '../../test/fake-client.js';
import { installLayoutStubs } from '../../test/render.js';
import { sampleSnapshot, TAKEN_AT } from '../../test/snapshot.js';
import { formatDateTime } from '../../shared/ui/format.js';
import { banner, choose, file, openSnapshotsTab } from '../../test/snapshots-tab.js';

beforeAll(installLayoutStubs);
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('Snapshots: open a file offline', () => {
  it('shows an opened snapshot in every screen with a banner, read-only, and returns to live', async () => {
    const client = new FakeCoreClient();
    const input = await openSnapshotsTab(client);
    await choose(input, file('before.json', JSON.stringify(sampleSnapshot())));

    const region = await screen.findByRole('region', { name: 'Offline snapshot' });
    expect(region.textContent).toContain(
      `Viewing snapshot taken at ${formatDateTime(Date.parse(TAKEN_AT))} from the simulated cluster — offline.`,
    );
    expect(region.textContent).toContain('before.json');
    // The core read the file (validation is its job), with the file's size.
    expect(client.calls).toContain('readSnapshot:before.json');
    // The summary and counters of the snapshot on this screen.
    expect(await screen.findByRole('heading', { name: 'Viewing before.json' })).toBeVisible();
    const counters = screen.getByRole('table', { name: 'Requests by GVR and outcome at capture time' });
    expect(within(counters).getAllByRole('row')[1]!.textContent).toContain('core/v1/pods');

    // The top bar: recorded totals and settings; nothing that would change a cluster.
    await waitFor(() => expect(screen.getByLabelText('Requests through the port').textContent).toContain('rerouted10'));
    expect(screen.getByText('offline snapshot')).toBeVisible();
    expect((screen.getByLabelText('Handling policy') as HTMLSelectElement).disabled).toBe(true);
    expect((screen.getByLabelText('Handling policy') as HTMLSelectElement).value).toBe('pin:sim-2');
    expect(screen.queryByRole('group', { name: 'Simulated rollout' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Export snapshot' })).toBeNull();
    expect(
      within(screen.getByRole('list', { name: 'Apiservers' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['sim-1v1.37ready', 'sim-2v1.36draining']);

    // GVR matrix: the snapshot's route table.
    fireEvent.click(screen.getByRole('tab', { name: 'GVR matrix' }));
    await screen.findByText(/2 skewed/);
    expect(screen.getAllByRole('rowheader').map((r) => r.textContent)).toContain('recorded.example.com/v1/widgets');
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toHaveLength(3);

    // Live routing: the recorded requests, no live stream controls.
    fireEvent.click(screen.getByRole('tab', { name: 'Live routing' }));
    expect(await screen.findByRole('heading', { name: 'Routing at capture time' })).toBeVisible();
    await waitFor(() => expect(screen.getAllByText('recorded-client').length).toBeGreaterThan(0));
    expect(screen.queryByRole('button', { name: 'Pause stream' })).toBeNull();
    const rerouted = screen.getByRole('button', { name: /^rerouted/ });
    expect(within(rerouted).getByText('10')).toBeVisible();

    // Server health at capture time.
    fireEvent.click(screen.getByRole('tab', { name: 'Server health' }));
    const sim2 = await screen.findByRole('article', { name: 'apiserver sim-2' });
    expect(sim2.textContent).toContain('draining');
    expect(sim2.textContent).toContain('failing: shutdown');
    expect(screen.getByRole('heading', { name: 'Server health at capture time' })).toBeVisible();

    // Discovery: this snapshot did not record the merged document (an earlier version's): said so, no toggle.
    fireEvent.click(screen.getByRole('tab', { name: 'Discovery' }));
    expect(screen.queryByRole('radio')).toBeNull();
    expect(screen.getByText(/did not record the merged discovery document/)).toBeVisible();

    // Back to live: the live cluster's matrix, the live totals and controls.
    fireEvent.click(within(banner()!).getByRole('button', { name: 'Return to live' }));
    expect(banner()).toBeNull();
    fireEvent.click(screen.getByRole('tab', { name: 'GVR matrix' }));
    await waitFor(() =>
      expect(screen.getAllByRole('rowheader').map((r) => r.textContent)).toContain('certificates.k8s.io/v1alpha1/clustertrustbundles'),
    );
    expect(await screen.findByRole('button', { name: 'Export snapshot' })).toBeVisible();
    expect(screen.getByRole('group', { name: 'Simulated rollout' })).toBeVisible();
    // Nothing offline reached the live core's mutations.
    expect(client.calls.filter((c) => c.startsWith('set') || c.endsWith('Rollout'))).toEqual([]);
  });

  // A snapshot of an earlier version records no display names: the test above shows its servers by their identities.
  it('shows the servers of a snapshot by the host names it recorded', async () => {
    const client = new FakeCoreClient();
    const input = await openSnapshotsTab(client);
    const recorded = sampleSnapshot();
    const hostNames: Record<string, string> = { 'sim-1': 'cp-1', 'sim-2': 'cp-2' };
    recorded.servers = recorded.servers.map((s) => ({ ...s, source: 'lease', displayName: hostNames[s.name] ?? s.name }));
    await choose(input, file('hosts.json', JSON.stringify(recorded)));
    await screen.findByRole('region', { name: 'Offline snapshot' });
    await waitFor(() =>
      expect(
        within(screen.getByRole('list', { name: 'Apiservers' }))
          .getAllByRole('listitem')
          .map((li) => li.textContent),
      ).toEqual(['cp-1v1.37ready', 'cp-2v1.36draining']),
    );
    expect(
      within(screen.getByRole('list', { name: 'Apiservers at capture time' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['cp-1v1.37ready', 'cp-2v1.36draining']);
    // The policy still pins the identity; its option reads the host name.
    const policy = screen.getByLabelText('Handling policy') as HTMLSelectElement;
    expect(policy.value).toBe('pin:sim-2');
    expect(policy.selectedOptions[0]!.textContent).toBe('pin to cp-2');
    fireEvent.click(screen.getByRole('tab', { name: 'Server health' }));
    const cp2 = await screen.findByRole('article', { name: 'apiserver cp-2' });
    expect(cp2.querySelector('.server-id')?.textContent).toBe('sim-2');
  });

  it('compares the recorded merged discovery with each server’s own, read-only', async () => {
    const client = new FakeCoreClient();
    const input = await openSnapshotsTab(client);
    const merged = {
      handling: 'sim-1',
      gvrs: ['/v1/pods', 'apps/v1/deployments', 'certificates.k8s.io/v1/clustertrustbundles', 'recorded.example.com/v1/widgets'],
    };
    await choose(input, file('recorded.json', JSON.stringify(sampleSnapshot({ mergedDiscovery: merged }))));
    await screen.findByRole('region', { name: 'Offline snapshot' });
    fireEvent.click(screen.getByRole('tab', { name: 'Discovery' }));
    expect(await screen.findByRole('heading', { name: 'Discovery at capture time' })).toBeVisible();
    // The mode the port was in, as text: nothing to switch.
    expect(screen.queryByRole('radio')).toBeNull();
    expect(await screen.findByText('No peer')).toBeVisible();
    // sim-2 (v1.36) lacks the two newer GVRs: the merge adds them for its clients.
    const table = await screen.findByRole('table');
    const row = within(table)
      .getAllByRole('row')
      .find((r) => r.textContent?.startsWith('sim-2'))!;
    expect(row.textContent).toContain('+2');
    const added = screen.getByRole('list', { name: 'GVRs added by the merge for sim-2' });
    expect(added.textContent).toContain('certificates.k8s.io/v1/clustertrustbundles');
    expect(added.textContent).toContain('recorded.example.com/v1/widgets');
    expect(client.calls.filter((c) => c.startsWith('set') || c === 'getDiscoveryViews')).toEqual([]);
  });

  it('names a broken file (file, line and column, or field) and loads nothing of it', async () => {
    const client = new FakeCoreClient();
    client.readResults.set('broken.json', {
      ok: false,
      error: {
        file: 'broken.json',
        message: 'broken.json:4:3: not valid JSON: comma expected',
        detail: 'not valid JSON: comma expected',
        reason: 'syntax',
        line: 4,
        column: 3,
      },
    });
    client.readResults.set('future.json', {
      ok: false,
      error: {
        file: 'future.json',
        message: 'future.json at /apiVersion: apiVersion peerscope.dev/v2 was made by a newer Peerscope; this one reads peerscope.dev/v1',
        detail: 'apiVersion peerscope.dev/v2 was made by a newer Peerscope; this one reads peerscope.dev/v1',
        reason: 'newer-version',
        pointer: '/apiVersion',
      },
    });
    const input = await openSnapshotsTab(client);
    await choose(input, file('broken.json', '{"kind": "RoutingSnapshot"'));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('broken.json could not be opened: not valid JSON: comma expected');
    expect(alert.textContent).toContain('line 4, column 3');
    expect(alert.textContent).toContain('cut short');
    expect(banner()).toBeNull();
    expect(screen.getByText(/No snapshot yet/)).toBeVisible();

    await choose(input, file('future.json', '{}'));
    const newer = await screen.findByRole('alert');
    expect(newer.textContent).toContain('future.json');
    expect(within(newer).getByText('/apiVersion')).toBeVisible();
    expect(newer.textContent).toContain('update Peerscope to open it');
    expect(banner()).toBeNull();
  });

  it('says when the core refused the call, naming its reason', async () => {
    const client = new FakeCoreClient();
    const input = await openSnapshotsTab(client);
    client.failWith = new PeerscopeError('PEERSCOPE_ERR_BODY_TOO_LARGE', 'the body exceeds 68157440 bytes');
    await choose(input, file('odd.json', '{}'));
    expect((await screen.findByRole('alert')).textContent).toContain('odd.json: could not be read: the body exceeds 68157440 bytes');
    expect(banner()).toBeNull();
  });

  it('tells a transport failure from a bad file: the file is not blamed, and says what to try', async () => {
    const client = new FakeCoreClient();
    const input = await openSnapshotsTab(client);
    client.failWith = new PeerscopeError('PEERSCOPE_ERR_TRANSPORT', 'readSnapshot: the Peerscope core cannot be reached');
    await choose(input, file('good.json', JSON.stringify(sampleSnapshot())));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('good.json was not read: readSnapshot: the Peerscope core cannot be reached');
    expect(alert.textContent).toContain('check that it is still running');
    expect(alert.textContent).not.toContain('could not be read');
    expect(banner()).toBeNull();
  });

  it('shows a snapshot the desktop app’s menu opened', async () => {
    const client = new FakeCoreClient();
    render(<App client={client} />);
    await screen.findByRole('list', { name: 'Apiservers' });
    act(() => client.emit({ type: 'snapshot-opened', file: 'from-menu.json', snapshot: sampleSnapshot() }));
    expect((await screen.findByRole('region', { name: 'Offline snapshot' })).textContent).toContain('from-menu.json');
    await screen.findByText(/2 skewed/);
    fireEvent.click(screen.getByRole('tab', { name: 'Snapshots' }));
    expect(
      within(screen.getByRole('table', { name: 'Snapshots opened or kept in this window' }))
        .getAllByRole('rowheader')
        .map((r) => r.textContent),
    ).toEqual(['from-menu.json']);
  });

  it('opens dropped files; several wait in the list, each can be viewed and removed', async () => {
    const client = new FakeCoreClient();
    await openSnapshotsTab(client);
    const after = sampleSnapshot({ takenAt: '2026-11-23T08:05:00.000Z' });
    await act(async () => {
      fireEvent.drop(screen.getByTestId('snapshot-dropzone'), {
        dataTransfer: { files: [file('before.json', JSON.stringify(sampleSnapshot())), file('after.json', JSON.stringify(after))] },
      });
    });
    const list = await screen.findByRole('table', { name: 'Snapshots opened or kept in this window' });
    expect(
      within(list)
        .getAllByRole('rowheader')
        .map((r) => r.textContent),
    ).toEqual(['before.json', 'after.json']);
    expect(banner()).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'View after.json offline' }));
    expect((await screen.findByRole('region', { name: 'Offline snapshot' })).textContent).toContain(
      formatDateTime(Date.parse(after.takenAt)),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Remove after.json' }));
    expect(banner()).toBeNull();
    await waitFor(() =>
      expect(
        within(screen.getByRole('table', { name: 'Snapshots opened or kept in this window' }))
          .getAllByRole('rowheader')
          .map((r) => r.textContent),
      ).toEqual(['before.json']),
    );
  });
});
