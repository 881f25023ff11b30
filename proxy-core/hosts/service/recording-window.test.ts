// The window calls over a recording written in this process: the impact report judges the clients the
// recording counted inside the window (port and audit log, each finding naming its source) against the
// servers at the window's end, and the false 404s are those of the window only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClusterEvent } from '../../contract/cluster.js';
import type { RoutingEvent } from '../../contract/events.js';
import { RecordingReader } from '../../engine/recording/reader.js';
import { RecordingWriter } from '../../engine/recording/writer.js';
import { PORT_IDENTITY_UNRECORDED, recordingWindowCalls } from './recording-window.js';

const dir = mkdtempSync(join(tmpdir(), 'recording-window-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2026, 10, 27, 14, 0);
const MIN = 60_000;
const GVRS = ['/v1/pods', 'apps/v1/deployments', 'networking.k8s.io/v1beta1/ipaddresses'];
const json = (value: unknown) => () => deflateSync(JSON.stringify(value));

const request = { path: '/x', namespace: 'default', subresource: '', latencyMs: 3 };
function portGet(at: number, group: string, version: string, resource: string): RoutingEvent {
  return {
    ...request,
    seq: 0,
    at,
    userAgent: 'kubectl/v1.36.0 (linux/amd64)',
    method: 'GET',
    verb: 'get',
    group,
    version,
    resource,
    handling: 'cp-1',
    answeredBy: 'cp-1',
    outcome: 'local',
    status: 200,
    bytesIn: 0,
    bytesOut: 10,
  };
}
function audited(at: number, over: Partial<ClusterEvent>): ClusterEvent {
  return {
    ...request,
    seq: 0,
    at,
    server: 'cp-1',
    userAgent: 'kube-controller-manager/v1.36.0',
    user: 'system:kube-controller-manager',
    verb: 'list',
    group: 'networking.k8s.io',
    version: 'v1beta1',
    resource: 'ipaddresses',
    outcome: 'local',
    code: 200,
    via: 'audit-log',
    ...over,
  };
}

function recording(): string {
  const file = join(dir, 'rollout.recording.sqlite');
  const w = RecordingWriter.create(file, { startedAt: T0, host: 'test' });
  for (const name of ['cp-1', 'cp-2']) {
    w.change('health', name, 'ready', T0 + 100);
    w.change('release', name, 'v1.36.0-dev', T0 + 100);
    w.change('discovery', name, `sha256:${name}`, T0 + 200, json({ gvrs: GVRS, excludedGroupVersions: [], apis: {}, api: {} }));
  }
  w.change('route-table', '', 'sha256:rt', T0 + 200, json(GVRS.map((g) => [g, ['cp-1', 'cp-2']])));
  // Inside the window (minutes 1–4): the port's kubectl gets ipaddresses 3 times, the controller lists
  // them twice (audit log), alice's kubectl gets 4 false 404s from cp-2; Peerscope's own reads are no client.
  for (let i = 0; i < 3; i++) w.routing(portGet(T0 + 1 * MIN + i * 1_000, 'networking.k8s.io', 'v1beta1', 'ipaddresses'));
  for (let i = 0; i < 2; i++) w.cluster(audited(T0 + 2 * MIN + i * 1_000, {}));
  const false404 = {
    server: 'cp-2',
    userAgent: 'kubectl/v1.36.0',
    user: 'alice',
    verb: 'get',
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
  };
  for (let i = 0; i < 4; i++) w.cluster(audited(T0 + 3 * MIN + i * 1_000, { ...false404, outcome: 'false-404', code: 404 }));
  w.cluster(audited(T0 + 3 * MIN, { userAgent: 'peerscope/0.1', user: 'peerscope' }));
  // Outside it (minute 10): more of each, which the window must not count.
  for (let i = 0; i < 5; i++) w.routing(portGet(T0 + 10 * MIN + i * 1_000, 'networking.k8s.io', 'v1beta1', 'ipaddresses'));
  w.cluster(audited(T0 + 10 * MIN, { ...false404, outcome: 'false-404', code: 404 }));
  w.close();
  return file;
}

describe('the recording-window calls', () => {
  const reader = RecordingReader.open(recording());
  afterAll(() => reader.close());
  const calls = recordingWindowCalls(() => reader);
  const window = { from: T0 + MIN, to: T0 + 5 * MIN };

  it('judge the clients counted in the window with the impact report, against the servers at its end', async () => {
    const report = await calls.getImpactForWindow(window);
    expect(report.kind).toBe('ImpactReport');
    expect(report.window).toEqual({ since: window.from, until: window.to, minutes: 4 });
    expect(report.current.map((s) => [s.name, s.gitVersion])).toEqual([
      ['cp-1', 'v1.36.0-dev'],
      ['cp-2', 'v1.36.0-dev'],
    ]);
    expect(report.target.release).toBe('v1.37-dev');
    expect(report.sources).toEqual(['port', 'cluster-audit']);
    const removed = report.findings.filter((f) => f.resource === 'ipaddresses');
    expect(removed.map((f) => [f.source, f.client.name, f.client.identity, f.impact, f.verbs.map((v) => [v.verb, v.count])])).toEqual([
      ['port', 'kubectl', PORT_IDENTITY_UNRECORDED, 'removed', [['get', 3]]],
      ['cluster-audit', 'kube-controller-manager', 'system:kube-controller-manager', 'removed', [['list', 2]]],
    ]);
    expect(removed[0]!.minutes).toEqual([{ at: T0 + MIN, count: 3 }]);
    expect(removed[0]!.evidence).toMatchObject({ firstAt: T0 + MIN, lastAt: T0 + 2 * MIN - 1 });
    // The rate is over the window: 3 requests in 4 minutes.
    expect(removed[0]!.verbs[0]!.perMinute).toBe(0.75);
    // Peerscope's own read is no client of the cluster.
    expect(report.findings.some((f) => f.client.userAgent.startsWith('peerscope'))).toBe(false);
  });

  it('judge against the target asked for', async () => {
    const report = await calls.getImpactForWindow({ ...window, target: 'v1.36-dev' });
    expect(report.target.release).toBe('v1.36-dev');
    expect(report.findings.filter((f) => f.impact === 'removed')).toEqual([]);
  });

  it('count the false 404s of the window by client, server and GVR', async () => {
    expect(await calls.getFalse404sForWindow(window)).toEqual({
      ...window,
      rows: [
        {
          userAgent: 'kubectl/v1.36.0',
          user: 'alice',
          server: 'cp-2',
          group: 'apps',
          version: 'v1',
          resource: 'deployments',
          count: 4,
          first: T0 + 3 * MIN,
          last: T0 + 3 * MIN,
        },
      ],
    });
    expect((await calls.getFalse404sForWindow({ from: T0, to: T0 + 20 * MIN })).rows[0]!.count).toBe(5);
  });

  it('refuse a window that ends before it starts, naming both ends', async () => {
    await expect(calls.getFalse404sForWindow({ from: T0 + MIN, to: T0 })).rejects.toMatchObject({
      code: 'PEERSCOPE_ERR_INVALID_ARGUMENTS',
      message: expect.stringMatching(/from=.*to=/),
    });
  });

  it('see what the session records after the reader opened: a client and outcome first seen later', async () => {
    const file = join(dir, 'growing.recording.sqlite');
    const w = RecordingWriter.create(file, { startedAt: T0, host: 'test' });
    w.change('health', 'cp-1', 'ready', T0 + 100);
    w.routing(portGet(T0 + MIN, 'apps', 'v1', 'deployments'));
    w.flush();
    const growing = RecordingReader.open(file);
    try {
      const later = recordingWindowCalls(() => growing);
      expect((await later.getFalse404sForWindow(window)).rows).toEqual([]);
      // Written while the reader stays open, as the app's reader of its own session's recording does.
      w.cluster(audited(T0 + 2 * MIN, { server: 'cp-2', userAgent: 'helm/3.19', user: 'bob', outcome: 'false-404', code: 404 }));
      w.flush();
      expect((await later.getFalse404sForWindow(window)).rows).toMatchObject([
        { userAgent: 'helm/3.19', user: 'bob', server: 'cp-2', count: 1 },
      ]);
    } finally {
      growing.close();
      w.close();
    }
  });
});
