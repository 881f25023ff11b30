// @vitest-environment jsdom
// Live routing with a cluster source (the core follows the apiservers' audit logs): the source switch,
// false 404s as an outcome of their own, and both sources together.
import '@testing-library/jest-dom/vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterEvent } from '../../../proxy-core/contract/index.js';
import { clusterEvent, clusterTotalsOf, FakeCoreClient, routingEvent } from '../../test/fake-client.js';
import { installLayoutStubs, renderWithClient } from '../../test/render.js';
import { LiveRouting } from './LiveRouting.js';

beforeAll(installLayoutStubs);
afterEach(cleanup);

const streamRows = () => [...document.querySelectorAll('.stream-scroll [role=row]')];
const PCR = '/apis/certificates.k8s.io/v1/podcertificaterequests';

function clusterBatch(events: ClusterEvent[]) {
  return {
    type: 'cluster' as const,
    events,
    counts: clusterTotalsOf(events),
    count: events.length,
    windowMs: 100,
    lastSeq: events.at(-1)!.seq,
  };
}

function clientWithCluster(): FakeCoreClient {
  const client = new FakeCoreClient();
  client.clusterEvents = [
    clusterEvent(1),
    clusterEvent(2, {
      server: 'sim-2',
      path: PCR,
      group: 'certificates.k8s.io',
      resource: 'podcertificaterequests',
      outcome: 'false-404',
      code: 404,
    }),
  ];
  return client;
}

describe('Live routing with a cluster source', () => {
  it('shows the cluster first: what the servers answered, a false 404 as an outcome of its own', async () => {
    renderWithClient(<LiveRouting />, clientWithCluster());
    const source = await screen.findByRole('group', { name: 'Source' });
    expect(within(source).getByRole('button', { name: 'Cluster' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByText(/read from their audit logs/)).toBeVisible();
    await waitFor(() => expect(streamRows()).toHaveLength(2));
    const newest = streamRows()[0]!;
    expect(newest.getAttribute('data-outcome')).toBe('false-404');
    expect(newest.textContent).toContain('false 404');
    expect(newest.textContent).toContain(PCR);
    expect(newest.textContent).toContain('legacy-operator');
    // The outcome filter offers the cluster's outcomes, false 404 among them, with its count.
    const filter = screen.getByRole('group', { name: 'Show outcomes' });
    expect(within(filter).getByRole('button', { name: /^false 404/ }).textContent).toContain('1');
    expect(within(filter).queryByRole('button', { name: /^discovery \(merged\)/ })).toBeNull();
  });

  it('adds pushed cluster events, and filters false 404s out and back', async () => {
    const client = clientWithCluster();
    renderWithClient(<LiveRouting />, client);
    await waitFor(() => expect(streamRows()).toHaveLength(2));
    act(() => client.emit(clusterBatch([clusterEvent(3, { outcome: 'false-404', code: 404, server: 'sim-3' })])));
    await waitFor(() => expect(streamRows()).toHaveLength(3));
    expect(streamRows()[0]!.textContent).toContain('sim-3');
    fireEvent.click(screen.getByRole('button', { name: /^false 404/ }));
    expect(streamRows().map((r) => r.getAttribute('data-outcome'))).toEqual(['local']);
    fireEvent.click(screen.getByRole('button', { name: /^false 404/ }));
    expect(streamRows()).toHaveLength(3);
  });

  it('switches to the port, and to both sources with a source column, newest first', async () => {
    const client = clientWithCluster();
    // The port's events are newer than the cluster's first and older than its second.
    client.events = [routingEvent(10, { at: 1_700_000_000_001 + 0.5 })];
    renderWithClient(<LiveRouting />, client);
    await waitFor(() => expect(streamRows()).toHaveLength(2));
    fireEvent.click(screen.getByRole('button', { name: 'Port' }));
    expect(screen.getByRole('button', { name: 'Port' })).toHaveAttribute('aria-pressed', 'true');
    await waitFor(() => expect(streamRows()).toHaveLength(1));
    expect(streamRows()[0]!.getAttribute('data-source')).toBe('port');
    expect(screen.getByText(/Every request through the local port/)).toBeVisible();
    fireEvent.click(screen.getByRole('button', { name: 'Both' }));
    await waitFor(() => expect(streamRows()).toHaveLength(3));
    expect(streamRows().map((r) => r.getAttribute('data-source'))).toEqual(['cluster', 'port', 'cluster']);
    expect(screen.getByRole('columnheader', { name: 'source' })).toBeVisible();
    // Both: every outcome of either source can be filtered.
    const filter = screen.getByRole('group', { name: 'Show outcomes' });
    expect(within(filter).getByRole('button', { name: /^false 404/ })).toBeVisible();
    expect(within(filter).getByRole('button', { name: /^discovery \(merged\)/ })).toBeVisible();
  });

  it('has no source switch when the core follows no audit log', async () => {
    renderWithClient(<LiveRouting />, new FakeCoreClient());
    await screen.findByRole('table', { name: 'Requests, newest first' });
    expect(screen.queryByRole('group', { name: 'Source' })).toBeNull();
    expect(within(screen.getByRole('group', { name: 'Show outcomes' })).queryByRole('button', { name: /^false 404/ })).toBeNull();
  });

  it('tallies the false 404s per client, server and GVR, beyond the rows kept, and says what a trimmed batch left unnamed', async () => {
    const client = clientWithCluster();
    renderWithClient(<LiveRouting />, client);
    const table = await screen.findByRole('table', { name: 'False 404s by client' });
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(2));
    const kubectl = 'kubectl/v1.36.3 (linux/amd64) kubernetes/abc';
    const falseFrom = (seq: number, over: Partial<ClusterEvent>) =>
      clusterEvent(seq, {
        path: PCR,
        group: 'certificates.k8s.io',
        version: 'v1',
        resource: 'podcertificaterequests',
        outcome: 'false-404',
        code: 404,
        ...over,
      });
    const batch = clusterBatch([
      falseFrom(3, {}),
      falseFrom(4, { userAgent: kubectl, user: 'kubernetes-admin', server: 'sim-3' }),
      falseFrom(5, {}),
    ]);
    // The core counted two more false 404s in this window than it sent.
    act(() => client.emit({ ...batch, counts: { ...batch.counts, 'false-404': batch.counts['false-404'] + 2 } }));
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(3));
    const rows = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((r) => [...r.querySelectorAll('th, td')].map((c) => c.firstChild?.textContent ?? ''));
    expect(rows.map((r) => r.slice(0, 4))).toEqual([
      ['legacy-operator (legacy-controller)', 'sim-2', 'certificates.k8s.io/v1 podcertificaterequests', '3'],
      ['kubectl', 'sim-3', 'certificates.k8s.io/v1 podcertificaterequests', '1'],
    ]);
    expect(within(table).getByText('kubernetes-admin')).toBeVisible();
    expect(table.querySelector('caption')?.textContent).toBe(
      '6 false 404s, 2 of them not named by client (a burst the core trimmed, or too many combinations)',
    );
  });

  it('shows no false-404 tally for the port source', async () => {
    renderWithClient(<LiveRouting />, clientWithCluster());
    await screen.findByRole('table', { name: 'False 404s by client' });
    fireEvent.click(screen.getByRole('button', { name: 'Port' }));
    expect(screen.queryByRole('table', { name: 'False 404s by client' })).toBeNull();
  });
});
