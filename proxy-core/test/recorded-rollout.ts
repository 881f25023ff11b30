// A recorded rollout, written by the real RecordingWriter to a file: three servers moving from
// v1.36.0 to v1.37.0 over ten minutes, one step at a time, with what goes wrong on the way — a server
// not ready while it restarts, another's discovery read failing (stale), an API registration missing,
// a server out of reach and the port's 503s for it, reroutes, false 404s, and a client that calls an
// API v1.37 no longer serves. The rollout report's tests read it (engine, CLI, Chromium).
import { deflateSync } from 'node:zlib';
import type { ClusterEvent } from '../contract/cluster.js';
import type { RoutingEvent } from '../contract/events.js';
import { RecordingWriter } from '../engine/recording/writer.js';

export const ROLLOUT_T0 = Date.UTC(2026, 10, 27, 14, 0);
const MIN = 60_000;
export const SERVERS = ['cp-1', 'cp-2', 'cp-3'] as const;
/** Served by v1.36, not by v1.37 (the catalog's releases). */
export const REMOVED_GVR = 'networking.k8s.io/v1beta1/ipaddresses';
export const IPAM_AGENT = 'ipam-controller/v0.3.1 (linux/amd64)';
export const LEGACY_AGENT = 'legacy-operator/v0.8';

function routing(at: number, over: Partial<RoutingEvent> = {}): RoutingEvent {
  return {
    ...{ seq: 0, at, userAgent: 'kubectl/v1.36.0', method: 'GET', verb: 'list', path: '/api/v1/pods', group: '', version: 'v1' },
    ...{ resource: 'pods', subresource: '', namespace: '', handling: 'cp-1', answeredBy: 'cp-1', outcome: 'local', status: 200 },
    ...{ latencyMs: 3, bytesIn: 0, bytesOut: 10 },
    ...over,
  };
}

function cluster(at: number, over: Partial<ClusterEvent> = {}): ClusterEvent {
  return {
    ...{ seq: 0, at, server: 'cp-1', userAgent: 'kubectl/v1.36.0', user: 'alice', verb: 'list', path: '/api/v1/pods', group: '' },
    ...{ version: 'v1', resource: 'pods', subresource: '', namespace: '', outcome: 'local', code: 200, latencyMs: 2 },
    ...over,
  } as ClusterEvent;
}

/** Writes the rollout to `file` (a new file) and returns its span. */
export function writeRecordedRollout(file: string): { from: number; to: number } {
  const t0 = ROLLOUT_T0;
  const w = RecordingWriter.create(file, { startedAt: t0, host: 'test' });
  const table = (gvrs: [string, string[]][]) => {
    const json = JSON.stringify(gvrs);
    return { hash: `sha256:${Buffer.from(json).toString('base64url').slice(-40)}`, body: () => deflateSync(json) };
  };
  const before = table([
    ['core/v1/pods', [...SERVERS]],
    [REMOVED_GVR, [...SERVERS]],
  ]);
  for (const s of SERVERS) {
    w.change('membership', s, 'joined', t0);
    w.change('health', s, 'ready', t0);
    w.change('release', s, 'v1.36.0', t0);
    w.change('discovery-state', s, 'ok', t0);
    w.change('registration', s, '', t0);
  }
  w.change('route-table', '', before.hash, t0, before.body);
  // The rollout: each server drained, restarted on v1.37.0, ready again; two minutes apart.
  SERVERS.forEach((s, i) => {
    const at = t0 + (1 + i * 3) * MIN;
    w.change('step', s, `upgrade ${s}: v1.36.0 → v1.37.0`, at);
    w.change('health', s, 'not-ready', at + 5_000);
    w.change('release', s, 'v1.37.0', at + 40_000);
    w.change('health', s, 'ready', at + 50_000);
  });
  w.change('step', '', 'every server runs v1.37.0', t0 + 9 * MIN);
  // cp-2's discovery read fails for a minute and a half; cp-3 misses a registration and is out of reach for two minutes.
  w.change('discovery-state', 'cp-2', 'stale', t0 + 2 * MIN);
  w.change('discovery-state', 'cp-2', 'ok', t0 + 3.5 * MIN);
  w.change('registration', 'cp-3', 'networking.k8s.io/v1beta1', t0 + 4 * MIN);
  w.change('registration', 'cp-3', '', t0 + 6 * MIN);
  w.change('health', 'cp-3', 'unreachable', t0 + 5 * MIN);
  w.change('health', 'cp-3', 'ready', t0 + 6.5 * MIN);
  const after = table([
    ['core/v1/pods', [...SERVERS]],
    [REMOVED_GVR, ['cp-2', 'cp-3']],
  ]);
  w.change('route-table', '', after.hash, t0 + 2 * MIN, after.body);
  for (let m = 0; m < 10; m++) {
    const at = t0 + m * MIN + 1_000;
    for (let i = 0; i < 20; i++) w.routing(routing(at + i * 100, { handling: SERVERS[i % 3]!, answeredBy: SERVERS[i % 3]! }));
    for (let i = 0; i < 10; i++) w.cluster(cluster(at + i * 100, { server: SERVERS[i % 3]! }));
    if (m < 5) {
      w.routing(
        routing(at, {
          userAgent: IPAM_AGENT,
          path: `/apis/${REMOVED_GVR}`,
          group: 'networking.k8s.io',
          version: 'v1beta1',
          resource: 'ipaddresses',
        }),
      );
    }
    if (m >= 2 && m < 5)
      for (let i = 0; i < 3; i++)
        w.routing(
          routing(at, {
            handling: 'cp-1',
            answeredBy: 'cp-2',
            outcome: 'rerouted',
            resource: 'ipaddresses',
            group: 'networking.k8s.io',
            version: 'v1beta1',
          }),
        );
    if (m >= 3 && m < 7)
      for (let i = 0; i < m; i++)
        w.cluster(
          cluster(at + i, {
            server: 'cp-1',
            userAgent: LEGACY_AGENT,
            user: 'system:serviceaccount:ops:legacy',
            outcome: 'false-404',
            code: 404,
          }),
        );
    if (m === 5)
      for (let i = 0; i < 4; i++) w.routing(routing(at + i, { handling: 'cp-3', answeredBy: null, outcome: 'unavailable', status: 503 }));
  }
  w.close();
  return { from: t0, to: t0 + 10 * MIN };
}
