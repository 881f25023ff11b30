// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { App } from './App.js';
import { clusterEvent, clusterTotalsOf, FakeCoreClient } from '../test/fake-client.js';
import { installLayoutStubs } from '../test/render.js';
import type { ConnectionState } from '../shared/transport/http.js';

beforeAll(installLayoutStubs);
afterEach(cleanup);

function connection(initial: ConnectionState) {
  let state = initial;
  const listeners = new Set<(s: ConnectionState) => void>();
  return {
    connection: () => state,
    onConnection(l: (s: ConnectionState) => void) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    set(next: ConnectionState) {
      state = next;
      for (const l of listeners) l(next);
    },
  };
}

describe('App shell', () => {
  it('shows the port, each server with release and health, and the outcome totals', async () => {
    render(<App client={new FakeCoreClient()} connection={connection('live')} />);
    const servers = await screen.findByRole('list', { name: 'Apiservers' });
    expect(
      within(servers)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['sim-1v1.37ready', 'sim-2v1.36ready', 'sim-3v1.36down']);
    expect(screen.getByText('127.0.0.1:8001')).toBeVisible();
    const totals = screen.getByLabelText('Requests through the port');
    expect(totals.textContent).toContain('rerouted7');
    expect(screen.getByText('live')).toBeVisible();
  });

  it('says in the top bar when the port runs --faithful (the servers’ own MVP), and nothing otherwise', async () => {
    render(<App client={new FakeCoreClient()} connection={connection('live')} />);
    await screen.findByText('discovery: peer-aggregated');
    expect(screen.queryByText(/^faithful/)).toBeNull();
    cleanup();
    const client = new FakeCoreClient();
    client.settings = { ...client.settings, faithful: true };
    render(<App client={client} connection={connection('live')} />);
    const chip = await screen.findByText("faithful: the servers' own MVP");
    expect(chip.getAttribute('title')).toContain('OpenAPI and legacy discovery');
  });

  it("counts the cluster source's pushed batches into the top bar, apart from the port's", async () => {
    const client = new FakeCoreClient();
    client.clusterEvents = [clusterEvent(1)];
    render(<App client={client} connection={connection('live')} />);
    const cluster = await screen.findByLabelText('Requests the apiservers answered, from their audit logs');
    expect(cluster.textContent).toContain('requests1false 4040');
    const pushed = [clusterEvent(2, { outcome: 'false-404', code: 404 }), clusterEvent(3, { outcome: 'false-404', code: 404 })];
    act(() => client.emit({ type: 'cluster', events: pushed, counts: clusterTotalsOf(pushed), count: 2, windowMs: 100, lastSeq: 3 }));
    await waitFor(() => expect(cluster.textContent).toContain('requests3false 4042'));
    expect(screen.getByLabelText('Requests through the port').textContent).toContain('requests128');
  });

  it('moves between screens with the arrow keys, Home and End', async () => {
    render(<App client={new FakeCoreClient()} />);
    const matrix = screen.getByRole('tab', { name: 'GVR matrix' });
    expect(matrix.getAttribute('aria-selected')).toBe('true');
    fireEvent.keyDown(matrix, { key: 'ArrowRight' });
    expect(screen.getByRole('tab', { name: 'Live routing' }).getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(screen.getByRole('tab', { name: 'Live routing' }));
    fireEvent.keyDown(document.activeElement!, { key: 'End' });
    expect(screen.getByRole('tab', { name: 'Recordings' }).getAttribute('aria-selected')).toBe('true');
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowRight' });
    expect(screen.getByRole('tab', { name: 'GVR matrix' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.getByRole('tabpanel').getAttribute('aria-labelledby')).toBe('tab-matrix');
  });

  it('changes the handling policy, starts the rollout and sets the traffic rate', async () => {
    const client = new FakeCoreClient();
    render(<App client={client} />);
    const policy = await screen.findByLabelText('Handling policy');
    await act(async () => fireEvent.change(policy, { target: { value: 'pin:sim-2' } }));
    expect(client.calls).toContain('setPolicy:pin:sim-2');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Start rollout' })));
    expect(client.calls).toContain('startRollout');
    act(() =>
      client.emit({
        type: 'sim',
        sim: {
          rollout: { phase: 'running', from: 'v1.36-dev', to: 'v1.37-dev', current: { server: 'sim-2', phase: 'draining' }, upgraded: [] },
          trafficRps: 20,
        },
      }),
    );
    // react-query notifies observers on the next tick.
    await screen.findByText(/running · sim-2 draining/);
    expect(screen.getByRole('button', { name: 'Pause rollout' })).toBeVisible();
    fireEvent.change(screen.getByLabelText('Traffic (req/s)'), { target: { value: '200' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Set' })));
    expect(client.calls).toContain('setTrafficRate:200');
  });

  it('follows pushed server changes and refetches everything after a reconnect', async () => {
    const client = new FakeCoreClient();
    const conn = connection('live');
    render(<App client={client} connection={conn} />);
    await screen.findByRole('list', { name: 'Apiservers' });
    act(() =>
      client.emit({
        type: 'servers',
        servers: client.servers.map((s) => (s.name === 'sim-2' ? { ...s, health: 'draining' as const } : s)),
      }),
    );
    await waitFor(() =>
      expect(within(screen.getByRole('list', { name: 'Apiservers' })).getAllByRole('listitem')[1]!.textContent).toContain('draining'),
    );
    act(() => conn.set('reconnecting'));
    expect(screen.getByText('reconnecting')).toBeVisible();
    const callsBefore = client.calls.filter((c) => c === 'getOverview').length;
    await act(async () => conn.set('live'));
    await waitFor(() => expect(client.calls.filter((c) => c === 'getOverview').length).toBeGreaterThan(callsBefore));
  });

  it('keeps the request stream while another screen is shown', async () => {
    const client = new FakeCoreClient();
    render(<App client={client} />);
    fireEvent.click(screen.getByRole('tab', { name: 'Live routing' }));
    await screen.findByRole('table', { name: 'Requests, newest first' });
    fireEvent.click(screen.getByRole('tab', { name: 'Server health' }));
    const counts = {
      local: 0,
      rerouted: 1,
      notfound: 0,
      unavailable: 0,
      'discovery-merged': 0,
      'discovery-own': 0,
      'non-resource': 0,
      rejected: 0,
    };
    const rerouted = { ...client.events[0]!, seq: 9, outcome: 'rerouted' as const, answeredBy: 'sim-1' };
    act(() => client.emit({ type: 'routing', events: [rerouted], counts, count: 1, windowMs: 100, lastSeq: 9 }));
    fireEvent.click(screen.getByRole('tab', { name: 'Live routing' }));
    const first = await screen.findByText('→ sim-1');
    expect(first.closest('[role=row]')?.getAttribute('data-outcome')).toBe('rerouted');
  });

  it('hides the simulator controls when the core runs on a real cluster', async () => {
    const client = new FakeCoreClient();
    client.sim = undefined;
    render(<App client={client} />);
    await screen.findByLabelText('Handling policy');
    expect(screen.queryByRole('group', { name: 'Simulated rollout' })).toBeNull();
  });
});
