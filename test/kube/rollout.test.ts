// A real rollout under traffic: two kube-apiservers of the older release (their own Mixed Version
// Proxy off, as kubeadm sets them up) on one etcd; each in turn is stopped and its machine comes
// back at the newer release, at the same address under a new hostname (a new identity). The same
// realistic traffic (proxy-core/sim/traffic/) runs at once through Peerscope (found from a
// kubeconfig, following the cluster) and straight to the servers (a round-robin load balancer);
// both are judged against when each server was ready and what etcd holds afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serversFromKubeconfig } from '../../proxy-core/engine/cluster/from-kubeconfig.js';
import { createCore, type Core } from '../../proxy-core/engine/core.js';
import { importRelease, type ReleaseCatalog } from '../../proxy-core/engine/releases/index.js';
import { startTraffic, type TrafficResult } from '../../proxy-core/sim/traffic/index.js';
import { kubeBinaries, skipKube } from './binaries.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { DISCOVERY_ACCEPT } from './discovery-compare.js';
import { figuresRow, judgeRealRun, type ReadyWindow, type RealJudgement } from './judge-real.js';
import { peerscope } from './peerscope-cli.js';

const SLACK_MS = 1_000;
const RPS = 60;
const STOP_GRACE_MS = 8_000;
/** How long the releases run side by side after each step: where a load balancer's false 404s happen. */
const MIXED_MS = 8_000;
/**
 * As kubeadm sets the servers up (no --peer-ca-file: their own MVP off), with the shutdown delay a
 * server behind a load balancer is given: for 2 s after SIGTERM its readyz fails while it still serves.
 */
const SERVER = { mvp: 'no-peer-ca', shutdownDelaySeconds: 2 } as const;

describe.skipIf(skipKube())('a real rollout under traffic, through Peerscope and straight to the servers', () => {
  let cp: ControlPlane;
  let core: Core;
  let oldNames: string[] = [];
  let viaPeerscope: RealJudgement;
  let direct: RealJudgement;
  const older = kubeBinaries?.older ?? '';
  const newer = kubeBinaries?.newer ?? '';

  beforeAll(async () => {
    // kube-probe (the newer release) is there only to read that release's discovery, then leaves.
    cp = await startControlPlane({
      servers: [
        { host: 'kube-1', release: older, ...SERVER },
        { host: 'kube-2', release: older, ...SERVER },
        { host: 'kube-probe', release: newer },
      ],
      identityLeaseSeconds: 10,
    });
  });
  afterAll(async () => {
    await core?.close(0);
    await cp?.close();
  });

  const catalogOf = async (host: string, release: string): Promise<ReleaseCatalog> => {
    const inputs = [];
    for (const path of ['/api', '/apis'])
      inputs.push({
        file: `${host}${path}`,
        text: (await cp.call(host, path, { headers: { accept: `${DISCOVERY_ACCEPT};profile=nopeer` } })).text,
      });
    return importRelease(release, inputs);
  };

  it('through Peerscope: no false 404, no lost or duplicated write; the figures beside the same traffic straight to the servers', async () => {
    const fromRelease = await catalogOf('kube-1', older);
    const toRelease = await catalogOf('kube-probe', newer);
    await cp.stop('kube-probe');
    const names = await cp.leaseNames();
    oldNames = ['kube-1', 'kube-2'].map((h) => names.get(h) as string);

    const found = await serversFromKubeconfig({ kubeconfig: cp.kubeconfig('kube-1'), env: {} });
    core = createCore({
      servers: found.servers,
      listen: { port: 0 },
      probeIntervalMs: 200,
      serverSource: found.source,
      serverRefreshIntervalMs: 1_000,
      ownMetricsIntervalMs: 0,
    });
    const port = await core.start();

    const windows: ReadyWindow[] = [];
    const open = new Map<string, { release: ReleaseCatalog; from: number }>(
      ['kube-1', 'kube-2'].map((h) => [h, { release: fromRelease, from: cp.server(h).readyAt }]),
    );
    const close = (host: string, at: number) => {
      const w = open.get(host);
      if (w) windows.push({ server: host, ...w, to: at });
      open.delete(host);
    };
    const throughPort: TrafficResult[] = [];
    const straight: TrafficResult[] = [];
    const common = { rps: RPS, releases: [fromRelease, toRelease], watches: 3, ca: cp.pki.caPem, token: cp.pki.adminToken };
    const a = startTraffic({
      ...common,
      targets: [port.url],
      namespace: 'traffic-via-peerscope',
      seed: 21,
      onResult: (r) => throughPort.push(r),
    });
    const b = startTraffic({
      ...common,
      targets: cp.servers.map((s) => s.url),
      namespace: 'traffic-direct',
      seed: 21,
      onResult: (r) => straight.push(r),
    });
    await new Promise((r) => setTimeout(r, 2_000));
    const steps: string[] = [];
    for (const host of ['kube-1', 'kube-2']) {
      const ip = cp.server(host).ip;
      const stopAt = Date.now();
      close(host, stopAt);
      // A server still holding watches takes its whole grace to exit (the kubelet's default is 30 s).
      await cp.stop(host, STOP_GRACE_MS);
      const next = await cp.start({ host: `${host}-${newer.replace(/\./g, '-')}`, release: newer, ...SERVER }, ip);
      open.set(next.spec.host, { release: toRelease, from: next.readyAt });
      steps.push(`${host} stopped, back at ${newer} in ${((next.readyAt - stopAt) / 1000).toFixed(1)} s`);
      await new Promise((r) => setTimeout(r, MIXED_MS));
    }
    const [sa, sb] = await Promise.all([a.stop(), b.stop()]);
    for (const [host, w] of open) windows.push({ server: host, ...w, to: Infinity });

    const readBack = async (gvr: string, namespace: string, name: string) => {
      const [group = '', version = '', resource = ''] = gvr.split('/');
      const path = `${group ? `/apis/${group}` : '/api'}/${version}${namespace ? `/namespaces/${namespace}` : ''}/${resource}/${name}`;
      const r = await cp.call(cp.servers[0]!.spec.host, path);
      return r.status === 200 ? (r.json().metadata.uid as string) : undefined;
    };
    const explain = (r: TrafficResult) => {
      const e = core.telemetry
        .recent()
        .find(
          (ev) => ev.status === r.status && `${ev.group}/${ev.version}/${ev.resource}` === r.gvr && Math.abs(ev.at - (r.at - r.ms)) < 1_000,
        );
      return e ? `handling ${e.handling}, answered by ${e.answeredBy}, ${e.outcome}${e.error ? `: ${e.error}` : ''}` : undefined;
    };
    viaPeerscope = await judgeRealRun(throughPort, sa, windows, SLACK_MS, readBack, explain);
    direct = await judgeRealRun(straight, sb, windows, SLACK_MS, readBack);
    console.log(
      [
        `real rollout, 2 kube-apiservers ${older} → ${newer} (own MVP off), ~${RPS} requests/s each way at once: ${steps.join('; ')}`,
        figuresRow('through Peerscope', viaPeerscope),
        figuresRow('straight to the servers', direct),
        ...viaPeerscope.examples.map((e) => `  Peerscope: ${e}`),
        ...direct.examples.slice(0, 3).map((e) => `  direct: ${e}`),
      ].join('\n'),
    );
    expect(viaPeerscope.requests).toBeGreaterThan(100);
    expect(viaPeerscope.falseNotFound, viaPeerscope.examples.join('; ')).toBe(0);
    expect(viaPeerscope.lostWrites, viaPeerscope.examples.join('; ')).toBe(0);
    expect(viaPeerscope.duplicateWrites).toBe(0);
    expect(viaPeerscope.unjustified503, viaPeerscope.examples.join('; ')).toBe(0);
    expect(viaPeerscope.acknowledgedWrites).toBeGreaterThan(0);
    expect(direct.lostWrites).toBe(0);
  }, 240_000);

  it('after the rollout the departed identities show as gone, and servers finds the new ones at the newer release', async () => {
    await expect
      .poll(() => oldNames.map((n) => core.servers.status(n)?.health), { timeout: 30_000, interval: 500 })
      .toEqual(['gone', 'gone']);
    for (const n of oldNames) console.log(`${n}: ${core.servers.status(n)?.gone?.reason}`);
    const r = await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-1'), '--output', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { servers: { name: string; release: string | null; health: string }[] };
    const live = out.servers.filter((s) => s.health !== 'gone');
    expect(live.map((s) => s.release)).toEqual([newer, newer]);
    expect(live.map((s) => s.name).some((n) => oldNames.includes(n))).toBe(false);
    console.log(`servers after the rollout: ${out.servers.map((s) => `${s.name} ${s.release ?? '-'} ${s.health}`).join('; ')}`);
  });
});
