// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeCoreClient } from '../../test/fake-client.js';
import { sampleImpactReport } from '../../test/impact.js';
import { renderWithClient } from '../../test/render.js';
import { sampleSnapshot } from '../../test/snapshot.js';
import { createSnapshotClient } from '../../shared/transport/snapshot-client.js';
import type { ImpactFinding } from '../../../proxy-core/contract/index.js';
import { UpgradeImpact } from './UpgradeImpact.js';

afterEach(cleanup);

/** The impact badge and client name of each row, top to bottom. */
function rows(): string[] {
  const table = screen.getByRole('table');
  return within(table)
    .getAllByRole('row')
    .slice(1)
    .map((r) => `${r.getAttribute('data-impact')} ${within(r).getByRole('rowheader').firstChild?.textContent}`);
}

describe('UpgradeImpact', () => {
  it('lists the findings most severe first, and by volume on request', async () => {
    renderWithClient(<UpgradeImpact />, new FakeCoreClient());
    await screen.findByRole('table');
    expect(rows()).toEqual([
      'removed legacy-operator (legacy-controller)',
      'skewed kubectl',
      'deprecated kubectl',
      'target-only kube-controller-manager (generic-garbage-collector)',
    ]);
    expect(screen.getByText(/not served by v1\.37-dev → 404 after the upgrade/)).toBeTruthy();
    // Requests per minute over the window, per finding.
    const legacyRow = within(screen.getByRole('table')).getAllByRole('row')[1]!;
    expect(within(legacyRow).getByRole('img').getAttribute('aria-label')).toBe('requests per minute (UTC): 12:00 5');
    expect(legacyRow.querySelectorAll('.minute-bars rect')).toHaveLength(1);
    fireEvent.click(screen.getByRole('button', { name: 'Requests' }));
    expect(rows()).toEqual([
      'target-only kube-controller-manager (generic-garbage-collector)',
      'skewed kubectl',
      'removed legacy-operator (legacy-controller)',
      'deprecated kubectl',
    ]);
    expect(screen.getByRole('columnheader', { name: /Requests/ }).getAttribute('aria-sort')).toBe('descending');
    fireEvent.click(screen.getByRole('button', { name: /Impact/ }));
    expect(rows()[0]).toBe('removed legacy-operator (legacy-controller)');
  });

  it('filters by client', async () => {
    renderWithClient(<UpgradeImpact />, new FakeCoreClient());
    const filter = await screen.findByRole('combobox', { name: 'Filter by client' });
    fireEvent.change(filter, { target: { value: 'kubectl · sim-admin' } });
    expect(rows()).toEqual(['skewed kubectl', 'deprecated kubectl']);
    expect(screen.getByText('2 of 4 findings, sorted by impact')).toBeTruthy();
  });

  it('asks for another target release', async () => {
    const client = new FakeCoreClient();
    renderWithClient(<UpgradeImpact />, client);
    const target = await screen.findByRole('combobox', { name: 'Target release' });
    await act(async () => fireEvent.change(target, { target: { value: 'v1.36-dev' } }));
    expect(client.calls).toContain('getImpactReport:v1.36-dev');
    expect(await screen.findByText(/not served by v1\.36-dev/)).toBeTruthy();
  });

  it('says so when nothing changes', async () => {
    const client = new FakeCoreClient();
    client.impact = (to) => ({ ...sampleImpactReport(to), findings: [] });
    renderWithClient(<UpgradeImpact />, client);
    expect(await screen.findByText(/Nothing the clients called changes with the upgrade from v1\.36\.0-dev to v1\.37-dev/)).toBeTruthy();
  });

  it('shows a snapshot’s own report offline, and explains an older snapshot without one', async () => {
    renderWithClient(<UpgradeImpact />, createSnapshotClient(sampleSnapshot({ impact: sampleImpactReport() }), { label: 'before.json' }));
    await screen.findByRole('table');
    expect(rows()).toHaveLength(4);
    cleanup();
    renderWithClient(<UpgradeImpact />, createSnapshotClient(sampleSnapshot(), { label: 'old.json' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/taken before Peerscope recorded which clients call what/);
  });

  it("names each finding's source when the core has the cluster's audit logs and /metrics, and filters by it", async () => {
    const client = new FakeCoreClient();
    client.impact = (to) => {
      const report = sampleImpactReport(to);
      const [removed, skewed, deprecated, targetOnly] = report.findings as [ImpactFinding, ImpactFinding, ImpactFinding, ImpactFinding];
      return {
        ...report,
        sources: ['port', 'cluster-audit', 'metrics'],
        findings: [
          { ...removed, source: 'cluster-audit' },
          { ...skewed, source: 'port' },
          {
            ...deprecated,
            source: 'metrics',
            client: { name: '(a client /metrics does not name)', userAgent: '', identity: 'any' },
            verbs: [],
            minutes: [],
          },
          { ...targetOnly, source: 'cluster-audit' },
        ],
      };
    };
    renderWithClient(<UpgradeImpact />, client);
    await screen.findByRole('table');
    expect(screen.getByText(/through the port, in the cluster's audit logs and in the servers' \/metrics over the last/)).toBeTruthy();
    const sources = () =>
      within(screen.getByRole('table'))
        .getAllByRole('row')
        .slice(1)
        .map((r) => `${r.getAttribute('data-source')} ${r.querySelector('.badge[class*="source-"]')?.textContent}`);
    expect(sources()).toEqual(['cluster-audit cluster audit', 'port port', 'metrics metrics', 'cluster-audit cluster audit']);
    expect(screen.getByText('requested; not counted per client')).toBeTruthy();
    fireEvent.change(screen.getByRole('combobox', { name: 'Filter by source' }), { target: { value: 'cluster-audit' } });
    expect(rows()).toEqual([
      'removed legacy-operator (legacy-controller)',
      'target-only kube-controller-manager (generic-garbage-collector)',
    ]);
  });

  it('has no source filter when every finding comes from the port', async () => {
    renderWithClient(<UpgradeImpact />, new FakeCoreClient());
    await screen.findByRole('table');
    expect(screen.queryByRole('combobox', { name: 'Filter by source' })).toBeNull();
    expect(screen.getByText(/clients through the port over the last/)).toBeTruthy();
  });
});
