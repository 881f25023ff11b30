// Issue 34, real faults on real servers: two kube-apiservers of one release on one etcd; the same
// load (fault-load.ts) runs through Peerscope and straight to the servers round-robin while one
// server is (a) blackholed — an nftables drop of its address inside the test network (blackhole.ts)
// — and then (b) SIGKILLed by PID and started again. Each side is measured the same way and printed
// side by side; the port's promises are asserted: no false 404, every write's outcome known or a
// Status that says it may not have happened, every answer within the connect and headers timeouts,
// the server's state shown within two probe intervals, its watches ended within two probe intervals,
// and the server back in service within two probe intervals of answering again.
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../proxy-core/src/core.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from '../../proxy-core/src/upstream/pool.js';
import { kubeBinaries, skipKube } from './binaries.js';
import { blackhole, blackholeUnavailable } from './blackhole.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { startLane, type LaneOptions, type LaneResult } from './fault-load.js';

const PROBE_INTERVAL_MS = 2_000; // the port's default
/** The port's headers timeout here (70 s by default): short, so a request to the silent server ends within the test. */
const HEADERS_TIMEOUT_MS = 15_000;
const FAULT_MS = 12_000;
const HEARTBEAT_MS = 250;
const SERVER = { mvp: 'no-peer-ca' } as const;

interface Figures {
  readonly requests: number;
  readonly falseNotFound: number;
  readonly status503: number;
  readonly noAnswer: number;
  readonly writes: {
    acknowledged: number;
    lost: number;
    duplicated: number;
    uncertain: number;
    toldByStatus: number;
    uncertainApplied: number;
  };
  readonly watches: { opened: number; clean: number; cut: number; stalled: number; longestStallMs: number };
  readonly slowestMs: number;
}

function figuresOf(result: LaneResult, stored: ReadonlySet<string>): Figures {
  const { requests, watches } = result;
  const creates = requests.filter((r) => r.kind === 'create');
  const uncertain = creates.filter((r) => r.status === 0 || r.status >= 500);
  const stalls = watches.flatMap((w) => w.stallsMs);
  return {
    requests: requests.length,
    falseNotFound: requests.filter((r) => (r.kind === 'get' || r.kind === 'list') && r.status === 404).length,
    status503: requests.filter((r) => r.status === 503).length,
    noAnswer: requests.filter((r) => r.status === 0).length,
    writes: {
      acknowledged: creates.filter((r) => r.status === 201).length,
      lost: creates.filter((r) => r.status === 201 && !stored.has(r.name as string)).length,
      duplicated: creates.filter((r) => r.status === 409).length,
      uncertain: uncertain.length,
      toldByStatus: uncertain.filter((r) => r.statusReason !== undefined).length,
      uncertainApplied: uncertain.filter((r) => stored.has(r.name as string)).length,
    },
    watches: {
      opened: watches.length,
      clean: watches.filter((w) => w.ending === 'clean').length,
      cut: watches.filter((w) => w.ending === 'cut').length,
      stalled: watches.filter((w) => w.stallsMs.length > 0).length,
      longestStallMs: stalls.length ? Math.max(...stalls) : 0,
    },
    slowestMs: Math.max(0, ...requests.map((r) => r.ms)),
  };
}

const s = (ms: number | undefined) => (ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);

function row(fault: string, side: string, f: Figures, noticeMs?: number, recoverMs?: number): string {
  const w = f.writes;
  const cells = [
    fault,
    side,
    f.requests,
    f.falseNotFound,
    f.status503,
    f.noAnswer,
    `${w.acknowledged} / ${w.lost} / ${w.duplicated} / ${w.uncertain} (${w.toldByStatus} told by a Status, ${w.uncertainApplied} applied)`,
    `${f.watches.opened} / ${f.watches.clean} / ${f.watches.cut}`,
    `${f.watches.stalled} (${s(f.watches.longestStallMs)})`,
    s(f.slowestMs),
    s(noticeMs),
    s(recoverMs),
  ];
  return `| ${cells.join(' | ')} |`;
}

const HEADER = [
  '| fault | side | requests | false 404 | 503 | no answer | writes acknowledged / lost / duplicated / uncertain | watches opened / ended cleanly / cut | watches stalled (longest) | slowest answer | noticed | back in service |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|',
];

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 50): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return Date.now();
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

describe.skipIf(skipKube())('real faults under load, through Peerscope and straight to the servers (issue 34)', () => {
  let cp: ControlPlane;
  let core: Core;
  let portUrl: string;
  const release = kubeBinaries?.newer ?? '';
  const rows: string[] = [];

  beforeAll(async () => {
    cp = await startControlPlane({
      servers: [
        { host: 'kube-a', release, ...SERVER },
        { host: 'kube-b', release, ...SERVER },
      ],
    });
    core = createCore({
      servers: cp.servers.map((x) => ({ name: x.spec.host, url: x.url, ca: cp.pki.caPem, bearerToken: () => cp.pki.adminToken })),
      listen: { port: 0 },
      probeIntervalMs: PROBE_INTERVAL_MS,
      upstream: { headersTimeoutMs: HEADERS_TIMEOUT_MS },
      ownMetricsIntervalMs: 0,
    });
    portUrl = (await core.start()).url;
  });
  afterAll(async () => {
    if (rows.length) console.log([`faults with ${release}, probes every ${PROBE_INTERVAL_MS / 1000} s:`, ...HEADER, ...rows].join('\n'));
    await core?.close(0);
    await cp?.close();
  });

  /** The server's own /readyz answers 200, on a connection of its own. */
  async function answersReady(url: string): Promise<boolean> {
    const agent = new Agent({ connect: { ca: cp.pki.caPem, timeout: 1_000 } });
    try {
      const res = await request(`${url}/readyz`, {
        dispatcher: agent,
        headers: { authorization: `Bearer ${cp.pki.adminToken}` },
        signal: AbortSignal.timeout(1_000),
      });
      await res.body.text();
      return res.statusCode === 200;
    } catch {
      return false;
    } finally {
      await agent.destroy();
    }
  }

  /**
   * Runs the load on both sides, injects the fault on kube-a after a calm start, heals it after
   * FAULT_MS; returns each side's figures and the port's times to notice and to recover.
   */
  async function underLoad(
    fault: string,
    inject: () => void,
    heal: () => Promise<void>,
  ): Promise<{ port: Figures; direct: Figures; noticeMs: number; recoverMs: number; lastError: string | undefined }> {
    const namespaces = { port: `${fault}-port`, direct: `${fault}-direct` };
    for (const ns of Object.values(namespaces)) {
      expect((await cp.call('kube-b', '/api/v1/namespaces', { method: 'POST', body: { metadata: { name: ns } } })).status).toBe(201);
      for (const name of ['seed', 'heartbeat'])
        expect(
          (await cp.call('kube-b', `/api/v1/namespaces/${ns}/configmaps`, { method: 'POST', body: { metadata: { name } } })).status,
        ).toBe(201);
    }
    const common: Omit<LaneOptions, 'targets' | 'namespace'> = {
      ca: cp.pki.caPem,
      writers: 3,
      writeEveryMs: 150,
      reflectors: 4,
      // Longer than the port's connect plus headers timeouts: the port must answer first.
      requestTimeoutMs: 30_000,
      stallMs: 1_500,
      maxRequests: 5_000,
    };
    const port = startLane({ ...common, targets: [portUrl], namespace: namespaces.port });
    const direct = startLane({ ...common, targets: cp.servers.map((x) => x.url), namespace: namespaces.direct, token: cp.pki.adminToken });
    // A change every HEARTBEAT_MS, straight to the healthy server: a watch that hears none is stalled.
    let beating = true;
    let slowestBeatMs = 0;
    const heartbeat = (async () => {
      for (let n = 0; beating && n < 2_000; n++) {
        const started = performance.now();
        for (const ns of Object.values(namespaces))
          await cp.call('kube-b', `/api/v1/namespaces/${ns}/configmaps/heartbeat`, {
            method: 'PATCH',
            body: { data: { n: String(n) } },
            headers: { 'content-type': 'application/merge-patch+json' },
          });
        slowestBeatMs = Math.max(slowestBeatMs, performance.now() - started);
        await new Promise((r) => setTimeout(r, HEARTBEAT_MS));
      }
    })();
    await new Promise((r) => setTimeout(r, 3_000));
    expect(core.servers.health('kube-a')).toBe('ready');
    const faultAt = Date.now();

    inject();
    const noticedAt = await until(
      'the port shows kube-a unreachable',
      () => core.serverStatuses().find((p) => p.name === 'kube-a')?.health === 'unreachable',
      15_000,
    );
    const lastError = core.servers.lastError('kube-a');
    await new Promise((r) => setTimeout(r, Math.max(0, faultAt + FAULT_MS - Date.now())));
    await heal();
    const serverReadyAt = await until('kube-a answers its own /readyz', () => answersReady(cp.server('kube-a').url), 120_000, 100);
    const backAt = await until('the port shows kube-a ready', () => core.servers.health('kube-a') === 'ready', 30_000);
    await new Promise((r) => setTimeout(r, 3_000));
    beating = false;
    await heartbeat;
    // Else a watch's silence would be the heartbeat's, not the fault's.
    expect(slowestBeatMs, 'the heartbeat to the healthy server stalled').toBeLessThan(1_000);
    const [portResult, directResult] = await Promise.all([port.stop(), direct.stop()]);

    const stored = async (ns: string) =>
      new Set(
        ((await cp.call('kube-b', `/api/v1/namespaces/${ns}/configmaps`)).json() as { items: { metadata: { name: string } }[] }).items.map(
          (i) => i.metadata.name,
        ),
      );
    return {
      port: figuresOf(portResult, await stored(namespaces.port)),
      direct: figuresOf(directResult, await stored(namespaces.direct)),
      noticeMs: noticedAt - faultAt,
      recoverMs: Math.max(0, backAt - serverReadyAt),
      lastError,
    };
  }

  /** The port's promises, for any fault. */
  function expectPromisesKept(name: string, r: Awaited<ReturnType<typeof underLoad>>): void {
    const f = r.port;
    expect(f.requests, name).toBeGreaterThan(100);
    expect(f.falseNotFound, `${name}: false 404s through the port`).toBe(0);
    expect(f.noAnswer, `${name}: requests through the port without an answer`).toBe(0);
    expect(f.writes.acknowledged).toBeGreaterThan(0);
    expect(f.writes.lost, `${name}: acknowledged writes missing`).toBe(0);
    expect(f.writes.duplicated, `${name}: writes applied twice`).toBe(0);
    expect(f.writes.toldByStatus, `${name}: uncertain writes without a Status`).toBe(f.writes.uncertain);
    expect(f.slowestMs, `${name}: an answer past the connect and headers timeouts`).toBeLessThanOrEqual(
      DEFAULT_CONNECT_TIMEOUT_MS + HEADERS_TIMEOUT_MS + 1_000,
    );
    expect(r.noticeMs, `${name}: kube-a shown unreachable`).toBeLessThanOrEqual(2 * PROBE_INTERVAL_MS + 100);
    // From the last heartbeat heard before the fault to the watch's end.
    expect(f.watches.longestStallMs, `${name}: a watch through the port stalled`).toBeLessThanOrEqual(
      2 * PROBE_INTERVAL_MS + HEARTBEAT_MS + 500,
    );
    expect(r.recoverMs, `${name}: kube-a back in service after it answered ready`).toBeLessThanOrEqual(2 * PROBE_INTERVAL_MS + 100);
  }

  it('a blackholed server (nftables drop of its address): its watches end cleanly, nothing is lost, every answer in time', async (ctx) => {
    const why = blackholeUnavailable();
    if (why) {
      console.log(`skipping the blackhole: ${why}`);
      return ctx.skip();
    }
    let hole: ReturnType<typeof blackhole> | undefined;
    try {
      const r = await underLoad(
        'blackhole',
        () => (hole = blackhole(cp.server('kube-a').ip, cp.port)),
        async () => hole?.lift(),
      );
      rows.push(
        row('blackhole of kube-a 12 s', 'through Peerscope', r.port, r.noticeMs, r.recoverMs),
        row('', 'straight, round-robin', r.direct),
      );
      console.log(`blackhole: kube-a shown unreachable after ${r.noticeMs} ms: ${r.lastError}`);
      expectPromisesKept('blackhole', r);
      expect(r.port.watches.cut, 'watches through the port cut instead of ended').toBe(0);
    } finally {
      hole?.lift();
    }
  }, 240_000);

  it('a SIGKILLed server, started again at its address: nothing is lost, every answer in time', async () => {
    const ip = cp.server('kube-a').ip;
    const r = await underLoad(
      'sigkill',
      () => process.kill(cp.server('kube-a').process.pid, 'SIGKILL'),
      async () => {
        const killed = cp.server('kube-a').process.child;
        await until('kube-a exits', () => killed.exitCode !== null || killed.signalCode !== null, 10_000);
        await cp.stop('kube-a');
        await cp.start({ host: 'kube-a', release, ...SERVER }, ip);
      },
    );
    rows.push(
      row('SIGKILL of kube-a, restarted', 'through Peerscope', r.port, r.noticeMs, r.recoverMs),
      row('', 'straight, round-robin', r.direct),
    );
    console.log(`SIGKILL: kube-a shown unreachable after ${r.noticeMs} ms: ${r.lastError}`);
    expectPromisesKept('SIGKILL', r);
  }, 240_000);
});
