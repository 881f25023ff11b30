// The side-by-side throughput bench (issue 9): Peerscope beside no proxy, kubectl proxy, nginx and
// a bare undici proxy, in front of the same HTTPS fake apiservers, driven by a load generator in its
// own process, in interleaved rounds after a warm-up. See docs/performance.md for what it measures
// and docs/decisions.md for why it is run this way.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { Agent, request } from 'undici';
import { aggregatedDiscovery, loadRelease } from '../../proxy-core/src/releases/index.js';
import { createCertificateAuthority, issueServerCertificate } from '../../proxy-core/src/tls/certs.js';
import { findTool } from './child-processes.js';
import { timeWatch, undiciGenerator, wrkGenerator, type LoadGenerator, type LoadResult, type Scenario } from './load.js';
import { buildBodies, NEW_RELEASE, OLD_RELEASE, PATHS } from './objects.js';
import { cpuSeconds, procAvailable, rssMiB } from './procs.js';
import { report } from './report.js';
import type { Report, ReportInput, Run, TargetInfo, WatchRun } from './report-types.js';
import { startKubectlProxy, startNginx } from './external-targets.js';
import { startBareUndici, startDirect, startNodeFloor, startPeerscope } from './node-targets.js';
import type { Files, Target, TargetName, UpstreamProcess } from './targets.js';
import { startUpstream } from './upstream-process.js';

export interface ThroughputOptions {
  readonly quick: boolean;
  /** Overrides, for experiments (`--rounds`, `--seconds`, `--connections`, `--only`). */
  readonly rounds?: number;
  readonly seconds?: number;
  readonly connections?: number;
  readonly only?: readonly TargetName[];
  readonly log?: (line: string) => void;
}

interface Plan {
  readonly rounds: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly watchEvents: number;
  readonly upstreamWorkers: number;
  readonly idleSettleMs: number;
}

/**
 * Idle is the steady state of a port with nothing to do. Right after start the heap still holds the
 * start-up garbage (discovery documents read and validated); V8's memory reducer returns it about 8 s
 * after start (87 → 77 MiB measured), so the full bench reads idle RSS after 10 s.
 */
export const IDLE_SETTLE_MS = 10_000;

function plan(o: ThroughputOptions): Plan {
  const base: Plan = o.quick
    ? { rounds: 1, seconds: 1, warmupSeconds: 0, connections: 16, watchEvents: 10_000, upstreamWorkers: 2, idleSettleMs: 500 }
    : { rounds: 5, seconds: 3, warmupSeconds: 2, connections: 16, watchEvents: 100_000, upstreamWorkers: 2, idleSettleMs: IDLE_SETTLE_MS };
  return {
    ...base,
    ...(o.rounds ? { rounds: o.rounds } : {}),
    ...(o.seconds ? { seconds: o.seconds } : {}),
    ...(o.connections ? { connections: o.connections } : {}),
  };
}

const SCENARIOS: readonly Scenario[] = ['get', 'list', 'post'];

/** Bundles the processes the bench starts, so none of them carries tsx's loader. */
export async function bundle(buildDir: string): Promise<void> {
  const here = new URL('.', import.meta.url).pathname;
  mkdirSync(buildDir, { recursive: true });
  await build({
    entryPoints: {
      upstream: join(here, 'upstream.ts'),
      'bare-proxy': join(here, 'bare-proxy.ts'),
      'floor-proxy': join(here, 'floor-proxy.ts'),
      'load-child': join(here, 'load-child.ts'),
    },
    outdir: buildDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
}

export async function prepareFiles(dir: string): Promise<Files> {
  const ca = await createCertificateAuthority('peerscope-bench-ca');
  const server = await issueServerCertificate(ca);
  const files: Files = {
    dir,
    caFile: join(dir, 'ca.pem'),
    certFile: join(dir, 'server.pem'),
    keyFile: join(dir, 'server-key.pem'),
    token: 'bench-token-0123456789abcdef',
    tokenFile: join(dir, 'token'),
    // Inside the repository, so the bundles resolve undici from its node_modules.
    buildDir: join(process.cwd(), 'dist', 'bench'),
  };
  writeFileSync(files.caFile, ca.cert);
  writeFileSync(files.certFile, server.cert);
  writeFileSync(files.keyFile, server.key, { mode: 0o600 });
  writeFileSync(files.tokenFile, files.token, { mode: 0o600 });
  for (const release of [OLD_RELEASE, NEW_RELEASE]) {
    const catalog = loadRelease(release);
    writeFileSync(join(dir, `${release}-apis.json`), JSON.stringify(aggregatedDiscovery(catalog, 'apis')));
    writeFileSync(join(dir, `${release}-api.json`), JSON.stringify(aggregatedDiscovery(catalog, 'api')));
  }
  writeFileSync(join(dir, 'create.json'), buildBodies().create);
  return files;
}

/** One GET through the target: the body must be the object, and Peerscope must say where it went. */
async function sanityCheck(t: Target, files: Files, objectBytes: number): Promise<void> {
  const dispatcher = t.direct ? new Agent({ connect: { ca: readFileSync(files.caFile, 'utf8') } }) : undefined;
  const res = await request(t.url + PATHS.get, {
    headers: { accept: 'application/json', ...(t.direct ? { authorization: `Bearer ${files.token}` } : {}) },
    ...(dispatcher ? { dispatcher } : {}),
  });
  const body = Buffer.from(await res.body.arrayBuffer());
  await dispatcher?.close();
  if (res.statusCode !== 200 || body.length !== objectBytes)
    throw new Error(`GET through ${t.name}: status ${res.statusCode}, ${body.length} bytes (expected 200, ${objectBytes})`);
}

async function metricsOutcomes(t: Target): Promise<Record<string, number>> {
  const res = await request(`${t.url}/.peerscope/metrics`);
  const text = await res.body.text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^peerscope_requests_total\{outcome="([^"]+)".*\} (\d+)$/gm))
    out[m[1] as string] = (out[m[1] as string] ?? 0) + Number(m[2]);
  return out;
}

/** The two fake apiservers: "old" lacks the bench GVR, "new" serves it (and gets every bench request). */
export async function startUpstreams(
  files: Files,
  workers: number,
  watchEvents: number,
  started: UpstreamProcess[] = [],
): Promise<[UpstreamProcess, UpstreamProcess]> {
  const old = await startUpstream(files, {
    name: 'old',
    gitVersion: 'v1.36.0-bench',
    apisFile: join(files.dir, `${OLD_RELEASE}-apis.json`),
    apiFile: join(files.dir, `${OLD_RELEASE}-api.json`),
    servesBench: false,
    workers: 1,
    watchEvents: 0,
  });
  started.push(old);
  const neu = await startUpstream(files, {
    name: 'new',
    gitVersion: 'v1.37.0-bench',
    apisFile: join(files.dir, `${NEW_RELEASE}-apis.json`),
    apiFile: join(files.dir, `${NEW_RELEASE}-api.json`),
    servesBench: true,
    workers,
    watchEvents,
  });
  started.push(neu);
  return [old, neu];
}

export async function runThroughput(options: ThroughputOptions): Promise<Report> {
  const log = options.log ?? ((line: string) => console.log(line));
  const p = plan(options);
  const dir = mkdtempSync(join(tmpdir(), 'peerscope-bench-'));
  const started = Date.now();
  const skipped: { target: string; reason: string }[] = [];
  const targets: Target[] = [];
  /** Every target started, measured or not: all are stopped at the end. */
  const launched: Target[] = [];
  const upstreams: UpstreamProcess[] = [];
  const infos = new Map<TargetName, TargetInfo>();
  try {
    if (!procAvailable) log('note: /proc is not available: CPU and RSS figures are left out');
    const files = await prepareFiles(dir);
    await bundle(files.buildDir);
    const bodies = buildBodies();
    const [old, neu] = await startUpstreams(files, p.upstreamWorkers, p.watchEvents, upstreams);

    const wrk = findTool('wrk');
    const load: LoadGenerator = wrk ? wrkGenerator(wrk, files, join(dir, 'create.json')) : undiciGenerator(files, join(dir, 'create.json'));
    if (!wrk) log('note: wrk not found on PATH: load comes from the undici load child (slower; ratios still compare like with like)');

    const want = (n: TargetName) => !options.only || options.only.includes(n);
    const starters: [TargetName, () => Promise<Target> | Target][] = [
      ['direct', () => startDirect(neu)],
      ['peerscope', () => startPeerscope(files, [old, neu], 'peerscope')],
      ['peerscope-local', () => startPeerscope(files, [neu], 'peerscope-local')],
      [
        'kubectl',
        () => {
          const kubectl = findTool('/usr/bin/kubectl') ?? findTool('kubectl');
          if (!kubectl) throw new Skip('kubectl not found (/usr/bin/kubectl or PATH)');
          return startKubectlProxy(files, kubectl, neu);
        },
      ],
      [
        'nginx',
        () => {
          const nginx = findTool('nginx');
          if (!nginx) throw new Skip('nginx not found on PATH (Debian: apt-get install nginx-light)');
          return startNginx(files, nginx, neu);
        },
      ],
      ['bare-undici', () => startBareUndici(files, neu)],
      ['node-floor', () => startNodeFloor(files, neu)],
    ];
    for (const [name, start] of starters) {
      if (!want(name)) continue;
      try {
        launched.push(await start());
      } catch (err) {
        const reason = err instanceof Skip ? err.message : `failed to start: ${(err as Error).message}`;
        skipped.push({ target: name, reason });
        log(`skip  ${name}: ${reason}`);
      }
    }
    // Idle: started, discovery read, no request served yet.
    await new Promise((r) => setTimeout(r, p.idleSettleMs));
    const idle = new Map(launched.map((t) => [t.name, t.direct ? undefined : rssMiB(t.pids())]));
    for (const t of launched) {
      try {
        await sanityCheck(t, files, bodies.object.length);
        targets.push(t);
        infos.set(t.name, { name: t.name, idleRssMiB: idle.get(t.name), peakRssMiB: undefined, afterLoadRssMiB: undefined });
      } catch (err) {
        skipped.push({ target: t.name, reason: (err as Error).message });
        log(`skip  ${t.name}: ${(err as Error).message}`);
      }
    }

    const runs: Run[] = [];
    const watches: WatchRun[] = [];
    const measure = async (t: Target, scenario: Scenario, round: number, seconds: number): Promise<Run> => {
      const pids = t.pids();
      const cpu0 = cpuSeconds(pids);
      const up0 = cpuSeconds(neu.pids);
      const stats0 = await neu.stats();
      const result: LoadResult = await load.run(t, scenario, { connections: p.connections, durationSeconds: seconds });
      const cpu1 = cpuSeconds(pids);
      const up1 = cpuSeconds(neu.pids);
      const stats1 = await neu.stats();
      const rss = t.direct ? undefined : rssMiB(pids);
      const info = infos.get(t.name);
      if (info && rss !== undefined) info.peakRssMiB = Math.max(info.peakRssMiB ?? 0, rss);
      const wall = result.durationUs / 1e6;
      return {
        target: t.name,
        scenario,
        round,
        rps: result.requests / wall,
        p50Ms: result.p50Us / 1000,
        p99Ms: result.p99Us / 1000,
        requests: result.requests,
        errors: result.connectErrors + result.readErrors + result.writeErrors + result.timeouts,
        statusErrors: result.statusErrors,
        proxyCpuUsPerRequest: t.direct ? undefined : ((cpu1 - cpu0) * 1e6) / Math.max(1, result.requests),
        proxyCpuCores: t.direct ? undefined : (cpu1 - cpu0) / wall,
        upstreamCpuUsPerRequest: ((up1 - up0) * 1e6) / Math.max(1, result.requests),
        upstreamCpuCores: (up1 - up0) / wall,
        loadCpuCores: result.loadCpuSeconds / wall,
        upstreamConnections: stats1.connections - stats0.connections,
        upstreamRequests: stats1.requests - stats0.requests,
      };
    };

    const order = (round: number) => targets.map((_, i) => targets[(i + round) % targets.length] as Target);
    if (p.warmupSeconds > 0) {
      log(`warm-up: ${targets.length} targets × ${SCENARIOS.length} scenarios × ${p.warmupSeconds} s`);
      for (const scenario of SCENARIOS) for (const t of targets) await measure(t, scenario, -1, p.warmupSeconds);
      for (const t of targets) await timeWatch(t, files, p.watchEvents);
    }
    // How much the upstream serves when pushed harder than any proxy pushes it: if this is well above
    // what the proxies get through, the upstream is not what limits them.
    let upstreamCapacity: ReportInput['upstreamCapacity'];
    const direct = targets.find((t) => t.direct);
    if (direct && !options.quick) {
      const up0 = cpuSeconds(neu.pids);
      const r = await load.run(direct, 'get', { connections: 64, durationSeconds: p.seconds, threads: 2 });
      const wall = r.durationUs / 1e6;
      upstreamCapacity = {
        rps: r.requests / wall,
        upstreamCpuCores: (cpuSeconds(neu.pids) - up0) / wall,
        loadCpuCores: r.loadCpuSeconds / wall,
      };
    }
    for (let round = 0; round < p.rounds; round++) {
      const roundStarted = Date.now();
      for (const scenario of SCENARIOS) {
        for (const t of order(round)) runs.push(await measure(t, scenario, round, p.seconds));
      }
      for (const t of order(round)) {
        const pids = t.pids();
        const cpu0 = cpuSeconds(pids);
        const w = await timeWatch(t, files, p.watchEvents);
        watches.push({
          target: t.name,
          round,
          ms: w.ms,
          events: w.events,
          bytes: w.bytes,
          proxyCpuMs: t.direct ? undefined : (cpuSeconds(pids) - cpu0) * 1000,
        });
      }
      log(`round ${round + 1}/${p.rounds} done in ${((Date.now() - roundStarted) / 1000).toFixed(0)} s`);
    }
    for (const t of targets) {
      const info = infos.get(t.name);
      if (info && !t.direct) info.afterLoadRssMiB = rssMiB(t.pids());
    }
    const routed = targets.find((t) => t.name === 'peerscope');
    const outcomes = routed ? await metricsOutcomes(routed).catch(() => ({})) : {};

    return report(
      {
        quick: options.quick,
        plan: p,
        loadGenerator: load.description,
        upstreamWorkers: p.upstreamWorkers,
        bodies: {
          objectBytes: bodies.object.length,
          listBytes: bodies.list.length,
          createBytes: bodies.create.length,
          watchEvents: p.watchEvents,
        },
        targets: [...infos.values()],
        skipped,
        runs,
        watches,
        peerscopeOutcomes: outcomes,
        upstreamCapacity,
        seconds: (Date.now() - started) / 1000,
      },
      log,
    );
  } finally {
    await Promise.all(launched.map((t) => t.stop().catch(() => undefined)));
    await Promise.all(upstreams.map((u) => u.stop().catch(() => undefined)));
    rmSync(dir, { recursive: true, force: true });
  }
}

class Skip extends Error {}
