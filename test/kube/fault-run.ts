// One fault run of issue 34's real-Kubernetes fault tests (faults.test.ts, faults-link.test.ts): the
// same load (fault-load.ts) through Peerscope and straight to the servers round-robin, a heartbeat
// straight to the healthy server, the fault injected on kube-a after a calm start and healed after a
// while; then each side's figures (fault-figures.ts), judged the same way, and the port's times to
// notice and recover.
import { Agent, request } from 'undici';
import { expect } from 'vitest';
import type { Core } from '../../proxy-core/engine/core.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from '../../proxy-core/engine/upstream/pool.js';
import type { ControlPlane } from './control-plane.js';
import { figuresOf, type Figures } from './fault-figures.js';
import { startLane, type LaneOptions } from './fault-load.js';

export const PROBE_INTERVAL_MS = 2_000; // the port's default
/** The port's headers timeout here (70 s by default): short, so a request to a silent server ends within the test. */
export const HEADERS_TIMEOUT_MS = 15_000;
export const HEARTBEAT_MS = 250;

export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 50): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return Date.now();
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

async function firstShown(ask: () => Promise<number | undefined>, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const at = await ask();
    if (at !== undefined) return at;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the servers did not show the fault themselves within ${timeoutMs} ms`);
}

/** What a fault run needs: the servers, the port in front of them, and where kube-a answers. */
export interface FaultBed {
  readonly cp: ControlPlane;
  readonly core: Core;
  readonly portUrl: string;
  /** Every server's URL, as the port and the load balancer reach them. */
  readonly serverUrls: () => readonly string[];
}

/**
 * The status of the server's own /readyz on a connection of its own, verified with `ca` (and
 * `servername`); undefined when no answer came within `timeoutMs`.
 */
export async function readyzStatus(
  url: string,
  { ca, token, servername, connectMs, timeoutMs }: { ca: string; token: string; servername?: string; connectMs: number; timeoutMs: number },
): Promise<number | undefined> {
  const agent = new Agent({ connect: { ca, timeout: connectMs, ...(servername ? { servername } : {}) } });
  try {
    const res = await request(`${url}/readyz`, {
      dispatcher: agent,
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body.text();
    return res.statusCode;
  } catch {
    return undefined;
  } finally {
    await agent.destroy();
  }
}

/** The server's own /readyz answers, but not 200 (a failing check), on a connection of its own. */
export async function answersNotReady(bed: FaultBed, url: string): Promise<boolean> {
  const status = await readyzStatus(url, { ca: bed.cp.pki.caPem, token: bed.cp.pki.adminToken, connectMs: 5_000, timeoutMs: 10_000 });
  return status !== undefined && status !== 200;
}

/** The server's own /readyz answers 200, on a connection of its own. */
export async function answersReady(bed: FaultBed, url: string): Promise<boolean> {
  return (await readyzStatus(url, { ca: bed.cp.pki.caPem, token: bed.cp.pki.adminToken, connectMs: 1_000, timeoutMs: 1_000 })) === 200;
}

export interface FaultPlan {
  /** Short name: the namespaces are named after it. */
  readonly fault: string;
  readonly inject: () => void | Promise<void>;
  readonly heal: () => Promise<void>;
  /** How long the fault lasts, from inject to heal. */
  readonly faultMs: number;
  /**
   * What the port must show once the fault is noticed (e.g. kube-a unreachable); undefined: the fault
   * must not take any server out (a slow link), and the port's view is sampled for any change instead.
   */
  readonly noticed?: () => boolean;
  /**
   * Asks the servers themselves, straight (e.g. whether their own /readyz fails: with etcd down each
   * server takes seconds to tell): the moment the round of questions that first showed the fault
   * was sent, else undefined. The port's notice is judged from that moment.
   */
  readonly serversShow?: () => Promise<number | undefined>;
  /** The heartbeat's writes fail during the fault (etcd down): watches are then silent on both sides by nature. */
  readonly heartbeatFails?: boolean;
}

export interface FaultRun {
  readonly port: Figures;
  readonly direct: Figures;
  /** From inject to `noticed` holding (undefined: nothing to notice). */
  readonly noticeMs: number | undefined;
  /** From inject to the servers' own verdict (`serversShow`), when the plan has one. */
  readonly serversShowMs: number | undefined;
  /** From every server answering its own /readyz again to the port showing each ready (undefined: none was out). */
  readonly recoverMs: number | undefined;
  /** What the port said of kube-a when it noticed (its last error). */
  readonly lastError: string | undefined;
  /** Each server's state and reason as the port showed them when it noticed (what `servers` and Server health show). */
  readonly shownWhenNoticed: readonly { name: string; health: string; failingChecks: string[]; lastError?: string }[];
  /** Health values other than 'ready' the port showed for any server during the run (a slow link: none expected). */
  readonly healthSeen: ReadonlySet<string>;
}

/**
 * Runs the load on both sides, injects the fault after a calm start, heals it after `faultMs`;
 * returns each side's figures and the port's times to notice and to recover.
 */
export async function underLoad(bed: FaultBed, plan: FaultPlan): Promise<FaultRun> {
  const { cp, core } = bed;
  const namespaces = { port: `${plan.fault}-port`, direct: `${plan.fault}-direct` };
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
  const port = startLane({ ...common, targets: [bed.portUrl], namespace: namespaces.port });
  const direct = startLane({ ...common, targets: bed.serverUrls(), namespace: namespaces.direct, token: cp.pki.adminToken });
  // A change every HEARTBEAT_MS, straight to the healthy server: a watch that hears none is stalled.
  let beating = true;
  let slowestBeatMs = 0;
  const heartbeat = (async () => {
    for (let n = 0; beating && n < 2_000; n++) {
      const started = performance.now();
      for (const ns of Object.values(namespaces))
        await cp
          .call('kube-b', `/api/v1/namespaces/${ns}/configmaps/heartbeat`, {
            method: 'PATCH',
            body: { data: { n: String(n) } },
            headers: { 'content-type': 'application/merge-patch+json' },
          })
          .catch(() => undefined);
      slowestBeatMs = Math.max(slowestBeatMs, performance.now() - started);
      await new Promise((r) => setTimeout(r, HEARTBEAT_MS));
    }
  })();
  // The port's view of every server, sampled all along.
  const healthSeen = new Set<string>();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      for (const p of core.serverStatuses()) if (p.health !== 'ready') healthSeen.add(`${p.name}: ${p.health}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  await new Promise((r) => setTimeout(r, 3_000));
  expect(core.servers.health('kube-a')).toBe('ready');
  healthSeen.clear();
  const faultAt = Date.now();

  await plan.inject();
  const serversShowAt = plan.serversShow ? firstShown(plan.serversShow, 20_000) : undefined;
  const noticedAt = plan.noticed ? await until('the port shows the fault', plan.noticed, 15_000) : undefined;
  const serversShowMs = serversShowAt ? (await serversShowAt) - faultAt : undefined;
  const lastError = core.servers.lastError('kube-a');
  const shownWhenNoticed = core.serverStatuses().map((p) => ({
    name: p.name,
    health: p.health,
    failingChecks: p.failingChecks,
    ...(p.lastError ? { lastError: p.lastError } : {}),
  }));
  await new Promise((r) => setTimeout(r, Math.max(0, faultAt + plan.faultMs - Date.now())));
  await plan.heal();
  let recoverMs: number | undefined;
  if (plan.noticed) {
    const names = core.serverStatuses().map((p) => p.name);
    const urls = bed.serverUrls();
    const serversReadyAt = Math.max(
      ...(await Promise.all(urls.map((u) => until(`${u} answers its own /readyz`, () => answersReady(bed, u), 120_000, 100)))),
    );
    const backAt = await until('the port shows every server ready', () => names.every((n) => core.servers.health(n) === 'ready'), 30_000);
    recoverMs = Math.max(0, backAt - serversReadyAt);
  }
  await new Promise((r) => setTimeout(r, 3_000));
  beating = false;
  sampling = false;
  await Promise.all([heartbeat, sampler]);
  // Else a watch's silence would be the heartbeat's, not the fault's.
  if (!plan.heartbeatFails) expect(slowestBeatMs, 'the heartbeat to the healthy server stalled').toBeLessThan(1_000);
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
    noticeMs: noticedAt === undefined ? undefined : noticedAt - faultAt,
    serversShowMs,
    recoverMs,
    lastError,
    shownWhenNoticed,
    healthSeen,
  };
}

export interface PromiseChecks {
  /** The watches through the port must not stall past two probe intervals (false: etcd down silences every watch). */
  readonly watchStalls?: boolean;
}

/** The port's promises, for any fault. */
export function expectPromisesKept(name: string, r: FaultRun, checks: PromiseChecks = {}): void {
  const f = r.port;
  expect(f.requests, name).toBeGreaterThan(100);
  expect(f.falseNotFound, `${name}: false 404s through the port`).toBe(0);
  expect(f.noAnswer, `${name}: requests through the port without an answer`).toBe(0);
  expect(f.writes.acknowledged).toBeGreaterThan(0);
  expect(f.writes.lost, `${name}: acknowledged writes missing`).toBe(0);
  expect(f.writes.duplicated, `${name}: writes applied twice`).toBe(0);
  expect(f.writes.toldByStatus, `${name}: uncertain writes without a Status`).toBe(f.writes.uncertain);
  expect(f.own503Unnamed, `${name}: the port's own 503s that name no server: ${f.own503Messages.join(' | ')}`).toBe(0);
  expect(f.slowestMs, `${name}: an answer past the connect and headers timeouts`).toBeLessThanOrEqual(
    DEFAULT_CONNECT_TIMEOUT_MS + HEADERS_TIMEOUT_MS + 1_000,
  );
  if (r.noticeMs !== undefined)
    expect(
      r.noticeMs - (r.serversShowMs ?? 0),
      `${name}: the fault shown by the port (after the servers' own verdict)`,
    ).toBeLessThanOrEqual(2 * PROBE_INTERVAL_MS + 100);
  // From the last heartbeat heard before the fault to the watch's end.
  if (checks.watchStalls !== false)
    expect(f.watches.longestStallMs, `${name}: a watch through the port stalled`).toBeLessThanOrEqual(
      2 * PROBE_INTERVAL_MS + HEARTBEAT_MS + 500,
    );
  if (r.recoverMs !== undefined)
    expect(r.recoverMs, `${name}: back in service after answering ready`).toBeLessThanOrEqual(2 * PROBE_INTERVAL_MS + 100);
}
