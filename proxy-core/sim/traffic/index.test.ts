// The traffic generator against real simulated servers, straight to them: bounded rate (counted
// where the requests arrive), every kind of client, acknowledged writes that match the store, the
// 404s an older server gives for a newer release's GVRs, and a watch that resumes where it stopped.
import { describe, expect, it } from 'vitest';
import { catalogEntries, loadRelease } from '../../engine/releases/index.js';
import { startSimCluster } from '../cluster.js';
import { startTraffic, type TrafficSummary } from './index.js';
import { TokenBucket } from './token-bucket.js';

const V136 = loadRelease('v1.36-dev');
const V137 = loadRelease('v1.37-dev');
const ALL_KINDS = ['list', 'watch', 'get', 'create', 'delete', 'ns-sweep'];

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

describe('token bucket', () => {
  it('grants no more than the rate plus its burst', async () => {
    const bucket = new TokenBucket(200, 10);
    const started = performance.now();
    for (let i = 0; i < 70; i++) expect(await bucket.take()).toBe(true);
    const seconds = (performance.now() - started) / 1000;
    // 70 tokens at 200/s with a burst of 10 need at least (70 - 10) / 200 = 0.3 s (timer jitter allowed).
    expect(seconds).toBeGreaterThanOrEqual(0.28);
    bucket.close();
    expect(await bucket.take()).toBe(false);
  });
});

describe('traffic generator', () => {
  it("stays within its rate, exercises every kind, logs acknowledged writes and reports an older server's 404s", async () => {
    const releases = [V136, V137];
    const sim = await startSimCluster({ releases });
    const arrivals: number[] = [];
    sim.onRequest(() => arrivals.push(performance.now()));
    try {
      const rps = 60;
      const sentAt: number[] = [];
      const started = performance.now();
      const traffic = startTraffic({
        targets: sim.servers.map((s) => s.info().url),
        ca: sim.ca!,
        token: sim.token!,
        rps,
        releases,
        seed: 7,
        onResult: (r) => sentAt.push(r.at - r.ms),
      });
      // Until every kind has been seen (a loaded machine just takes longer), at least 2 s.
      await new Promise((r) => setTimeout(r, 2_000));
      await until(() => ALL_KINDS.every((k) => (traffic.summary().byKind[k] ?? 0) > 0), 30_000);
      const summary: TrafficSummary = await traffic.stop();
      const seconds = (performance.now() - started) / 1000;

      // Rate, over the whole run: every request that reached a server.
      const burst = Math.ceil(rps / 10);
      expect(arrivals.length).toBeLessThanOrEqual(rps * seconds + burst + 2);
      // And in any one second, by when each request was sent (arrival times would also carry the
      // servers' event-loop stalls on a loaded machine, which bunch requests that were paced).
      const sent = sentAt.sort((a, b) => a - b);
      let busiestSecond = 0;
      for (let i = 0, j = 0; i < sent.length; i++) {
        while ((sent[i] as number) - (sent[j] as number) >= 1000) j++;
        busiestSecond = Math.max(busiestSecond, i - j + 1);
      }
      expect(busiestSecond).toBeLessThanOrEqual(rps + burst + 2);

      for (const kind of ALL_KINDS) expect(summary.byKind[kind] ?? 0, kind).toBeGreaterThan(0);
      expect(summary.watchEvents).toBeGreaterThan(0);

      // Acknowledged writes match the store: creates with their uid, deletes gone.
      const creates = summary.writes.filter((w) => w.op === 'create');
      expect(creates.length).toBeGreaterThan(0);
      const deleted = new Set(summary.writes.filter((w) => w.op === 'delete').map((w) => w.name));
      expect(deleted.size).toBeGreaterThan(0);
      const uncertain = new Set(summary.uncertain);
      for (const w of creates) {
        expect(w.uid && w.resourceVersion, w.name).toBeTruthy();
        if (uncertain.has(w.name)) continue;
        const [group = '', , resource = ''] = w.gvr.split('/');
        const stored = sim.store.get({ group, resource }, w.namespace, w.name);
        if (deleted.has(w.name)) expect(stored, `${w.name} was deleted`).toBeUndefined();
        else expect(stored?.metadata.uid, w.name).toBe(w.uid);
      }

      // Straight to the servers, a GVR only v1.37 serves gets a 404 from the v1.36 server: the false
      // 404s Peerscope prevents. Each one is a GVR the answering server lacks and the other serves.
      expect(summary.notFound.length).toBeGreaterThan(0);
      const serves = (release: typeof V136, gvr: string) =>
        [...catalogEntries(release)].some((e) => `${e.group}/${e.version}/${e.resource.name}` === gvr);
      for (const n of summary.notFound) {
        const at = sim.servers.findIndex((s) => s.info().url === n.target);
        expect(serves(releases[at]!, n.gvr), `${n.gvr} at ${n.target}`).toBe(false);
        expect(serves(releases[1 - at]!, n.gvr), `${n.gvr} elsewhere`).toBe(true);
      }
      expect(summary.notFound.some((n) => n.target === sim.servers[0]!.info().url)).toBe(true);
    } finally {
      await sim.close();
    }
  }, 60_000);

  it('resumes a watch from the last resourceVersion it saw when the server ends the stream', async () => {
    const sim = await startSimCluster({ releases: [V137], http: true });
    const watches: URLSearchParams[] = [];
    let reflectorLists = 0;
    sim.onRequest((_server, req) => {
      const url = new URL(req.url, 'http://x');
      if (url.pathname !== '/api/v1/namespaces/peerscope-traffic/configmaps') return;
      if (url.searchParams.get('watch') === 'true') watches.push(url.searchParams);
      else if (url.searchParams.get('limit') === '500') reflectorLists++; // the reflector's list, not a kubectl-like one
    });
    const traffic = startTraffic({ targets: [sim.servers[0]!.info().url], rps: 20, releases: [V137], watches: 1 });
    try {
      await until(() => watches.length === 1, 10_000);
      expect(watches).toHaveLength(1);
      // A write the watch must see, then the server ends every open watch (drain) and comes back.
      const written = sim.store.create(
        { group: '', resource: 'configmaps' },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resume-me', namespace: 'peerscope-traffic' }, data: {} },
      );
      await until(() => traffic.summary().watchEvents > 0, 5_000);
      const before = traffic.summary();
      const server = sim.servers[0]!;
      await server.drain(0);
      await server.stop();
      await server.start();
      await until(() => watches.length >= 2 && traffic.summary().watchReconnects > before.watchReconnects, 10_000);
      const latestRv = Number(watches.at(-1)!.get('resourceVersion'));
      expect(latestRv).toBeGreaterThanOrEqual(Number(written.metadata.resourceVersion));
      // Resumed, not relisted: the reflector listed once, at its start.
      expect(reflectorLists).toBe(1);
    } finally {
      await traffic.stop();
      await sim.close();
    }
  }, 30_000);
});
