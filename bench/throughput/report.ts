// Summaries (median and spread over rounds), ratios taken round by round, the targets of issue 9
// judged ok / MISS, and the printed tables.
import { cpus } from 'node:os';
import type { Scenario } from './load.js';
import { fmt, fmtSpread, roundRatios, spread, type Spread } from './stats.js';
import { TARGET_LABEL, type TargetName } from './targets.js';

export interface Run {
  readonly target: TargetName;
  readonly scenario: Scenario;
  readonly round: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  /** Connect, read, write errors and timeouts seen by the load generator. */
  readonly errors: number;
  /** Answers with a status ≥ 400. */
  readonly statusErrors: number;
  readonly proxyCpuUsPerRequest: number | undefined;
  /** CPU seconds per wall second of the proxy process (1.0 = one core busy). */
  readonly proxyCpuCores: number | undefined;
  readonly upstreamCpuUsPerRequest: number;
  readonly upstreamCpuCores: number;
  readonly loadCpuCores: number;
  readonly upstreamConnections: number;
  readonly upstreamRequests: number;
}

export interface WatchRun {
  readonly target: TargetName;
  readonly round: number;
  readonly ms: number;
  readonly events: number;
  readonly bytes: number;
  readonly proxyCpuMs: number | undefined;
}

export interface TargetInfo {
  readonly name: TargetName;
  readonly idleRssMiB: number | undefined;
  peakRssMiB: number | undefined;
  afterLoadRssMiB: number | undefined;
}

export interface ReportInput {
  readonly quick: boolean;
  readonly plan: {
    readonly rounds: number;
    readonly seconds: number;
    readonly warmupSeconds: number;
    readonly connections: number;
    readonly watchEvents: number;
  };
  readonly loadGenerator: string;
  readonly upstreamWorkers: number;
  readonly bodies: { readonly objectBytes: number; readonly listBytes: number; readonly createBytes: number; readonly watchEvents: number };
  readonly targets: readonly TargetInfo[];
  readonly skipped: readonly { readonly target: string; readonly reason: string }[];
  readonly runs: readonly Run[];
  readonly watches: readonly WatchRun[];
  readonly peerscopeOutcomes: Record<string, number>;
  /** GET straight to the upstream with 2 load threads and 64 connections (full mode only). */
  readonly upstreamCapacity: { readonly rps: number; readonly upstreamCpuCores: number; readonly loadCpuCores: number } | undefined;
  readonly seconds: number;
}

export interface Check {
  readonly name: string;
  readonly op: '≥' | '≤';
  readonly target: number;
  readonly unit: string;
  /** The median (ratios: of the per-round ratios); undefined when a target needed for it is missing. */
  readonly value: number | undefined;
  readonly spread?: Spread;
  readonly ok: boolean | undefined;
  readonly skipped?: string;
}

export interface Report extends ReportInput {
  readonly summary: Record<string, Record<string, Record<string, Spread | undefined>>>;
  readonly ratios: Record<string, Spread | undefined>;
  readonly checks: readonly Check[];
}

const SCENARIO_LABEL: Record<Scenario, string> = { get: 'GET one object', list: 'LIST', post: 'POST (create)' };
const METRICS = [
  'rps',
  'p50Ms',
  'p99Ms',
  'proxyCpuUsPerRequest',
  'proxyCpuCores',
  'upstreamCpuCores',
  'loadCpuCores',
  'upstreamConnections',
] as const;

function byRound(runs: readonly Run[], target: TargetName, scenario: Scenario, metric: 'rps' | 'p99Ms'): Map<number, number> {
  return new Map(runs.filter((r) => r.target === target && r.scenario === scenario).map((r) => [r.round, r[metric]]));
}

function kb(bytes: number): string {
  return bytes >= 1_000_000 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1000).toFixed(1)} KB`;
}

export function report(input: ReportInput, log: (line: string) => void): Report {
  const { runs, watches, plan } = input;
  const present = new Set(input.targets.map((t) => t.name));
  const scenarios = [...new Set(runs.map((r) => r.scenario))];

  // Summaries per scenario × target × metric.
  const summary: Report['summary'] = {};
  for (const s of scenarios) {
    summary[s] = {};
    for (const t of present) {
      const mine = runs.filter((r) => r.scenario === s && r.target === t);
      const row: Record<string, Spread | undefined> = {};
      for (const m of METRICS) row[m] = spread(mine.map((r) => r[m]).filter((v): v is number => v !== undefined));
      summary[s][t] = row;
    }
  }

  const ratioOf = (a: TargetName, b: TargetName, s: Scenario, metric: 'rps' | 'p99Ms' = 'rps') =>
    present.has(a) && present.has(b) ? spread(roundRatios(byRound(runs, a, s, metric), byRound(runs, b, s, metric))) : undefined;
  const ratios: Report['ratios'] = {};
  const pairs: [string, TargetName, TargetName, 'rps' | 'p99Ms'][] = [
    ['Peerscope / kubectl proxy, req/s', 'peerscope', 'kubectl', 'rps'],
    ['Peerscope / nginx, req/s', 'peerscope', 'nginx', 'rps'],
    ['Peerscope / bare undici, req/s', 'peerscope', 'bare-undici', 'rps'],
    ['Peerscope local-only / bare undici, req/s', 'peerscope-local', 'bare-undici', 'rps'],
    ['Peerscope / direct, req/s', 'peerscope', 'direct', 'rps'],
    ['Peerscope / nginx, p99', 'peerscope', 'nginx', 'p99Ms'],
    // For reading the targets against nginx and kubectl proxy: how far the floor of Node itself is.
    ['Node floor / nginx, req/s', 'node-floor', 'nginx', 'rps'],
    ['Node floor / kubectl proxy, req/s', 'node-floor', 'kubectl', 'rps'],
    ['Peerscope / Node floor, req/s', 'peerscope', 'node-floor', 'rps'],
  ];
  for (const [label, a, b, metric] of pairs) for (const s of scenarios) ratios[`${label}, ${s.toUpperCase()}`] = ratioOf(a, b, s, metric);

  const watchRatio =
    present.has('peerscope') && present.has('direct')
      ? spread(
          roundRatios(
            new Map(watches.filter((w) => w.target === 'peerscope').map((w) => [w.round, w.ms])),
            new Map(watches.filter((w) => w.target === 'direct').map((w) => [w.round, w.ms])),
          ),
        )
      : undefined;

  // The targets of issue 9.
  const checks: Check[] = [];
  const ratioCheck = (
    name: string,
    a: TargetName,
    b: TargetName,
    s: Scenario,
    op: '≥' | '≤',
    target: number,
    metric: 'rps' | 'p99Ms' = 'rps',
  ) => {
    if (!scenarios.includes(s)) return;
    const sp = ratioOf(a, b, s, metric);
    const missing = [a, b].filter((t) => !present.has(t));
    checks.push({
      name,
      op,
      target,
      unit: '×',
      value: sp?.median,
      ...(sp ? { spread: sp } : {}),
      ok: sp ? (op === '≥' ? sp.median >= target : sp.median <= target) : undefined,
      ...(missing.length ? { skipped: `${missing.join(', ')} not measured` } : {}),
    });
  };
  for (const s of ['get', 'list'] as const)
    ratioCheck(`Peerscope / kubectl proxy req/s, ${s.toUpperCase()}`, 'peerscope', 'kubectl', s, '≥', 2.0);
  for (const s of ['get', 'list'] as const) ratioCheck(`Peerscope / nginx req/s, ${s.toUpperCase()}`, 'peerscope', 'nginx', s, '≥', 0.75);
  for (const s of ['get', 'list', 'post'] as const)
    ratioCheck(`Peerscope / bare undici req/s, ${s.toUpperCase()}`, 'peerscope', 'bare-undici', s, '≥', 0.9);
  for (const s of ['get', 'list', 'post'] as const)
    ratioCheck(`Peerscope p99 / nginx p99, ${s.toUpperCase()}`, 'peerscope', 'nginx', s, '≤', 2.0, 'p99Ms');
  const cpu = summary.get?.peerscope?.proxyCpuUsPerRequest;
  checks.push({
    name: 'Peerscope proxy CPU per GET',
    op: '≤',
    target: 40,
    unit: 'µs',
    value: cpu?.median,
    ...(cpu ? { spread: cpu } : {}),
    ok: cpu ? cpu.median <= 40 : undefined,
    ...(present.has('peerscope') ? {} : { skipped: 'peerscope not measured' }),
  });
  checks.push({
    name: `Peerscope watch of ${fmt(plan.watchEvents)} events / direct, time`,
    op: '≤',
    target: 1.1,
    unit: '×',
    value: watchRatio?.median,
    ...(watchRatio ? { spread: watchRatio } : {}),
    ok: watchRatio ? watchRatio.median <= 1.1 : undefined,
  });
  const ps = input.targets.find((t) => t.name === 'peerscope');
  checks.push({
    name: 'Peerscope RSS idle (2 servers)',
    op: '≤',
    target: 80,
    unit: 'MiB',
    value: ps?.idleRssMiB,
    ok: ps?.idleRssMiB !== undefined ? ps.idleRssMiB <= 80 : undefined,
  });
  checks.push({
    name: 'Peerscope RSS after load',
    op: '≤',
    target: 150,
    unit: 'MiB',
    value: ps?.afterLoadRssMiB,
    ok: ps?.afterLoadRssMiB !== undefined ? ps.afterLoadRssMiB <= 150 : undefined,
  });

  print(input, summary, ratios, watchRatio, checks, log);
  return { ...input, summary, ratios, checks };
}

function pad(s: string, n: number): string {
  return s.length >= n ? s + ' ' : s.padEnd(n);
}

function print(
  input: ReportInput,
  summary: Report['summary'],
  ratios: Report['ratios'],
  watchRatio: Spread | undefined,
  checks: readonly Check[],
  log: (line: string) => void,
): void {
  const { plan, runs, watches } = input;
  const order = (['direct', 'peerscope', 'peerscope-local', 'kubectl', 'nginx', 'bare-undici', 'node-floor'] as TargetName[]).filter((t) =>
    input.targets.some((x) => x.name === t),
  );
  const rounds = plan.rounds === 1 ? '1 round' : `${plan.rounds} rounds`;
  log(
    `\nthroughput${input.quick ? ' (quick: one short round, figures are indicative only)' : ''}: ${input.loadGenerator}, ${plan.connections} connections, ${rounds} × ${plan.seconds} s per target and scenario${plan.warmupSeconds ? ` after a ${plan.warmupSeconds} s warm-up of each` : ''}, targets interleaved`,
  );
  log(
    `upstream: HTTPS fake apiservers "old" (v1.36, lacks scheduling.k8s.io/v1beta1 podgroups) and "new" (v1.37, ${input.upstreamWorkers} worker processes); machine: ${cpus().length} cores`,
  );
  log(
    `bodies: GET ${kb(input.bodies.objectBytes)}, LIST ${kb(input.bodies.listBytes)}, POST ${kb(input.bodies.createBytes)}, watch ${fmt(input.bodies.watchEvents)} events; median (min–max) over rounds`,
  );
  for (const s of Object.keys(summary) as Scenario[]) {
    log(`\n${SCENARIO_LABEL[s]}`);
    log(
      `${pad('target', 36)}${pad('req/s', 24)}${pad('p50 ms', 18)}${pad('p99 ms', 20)}${pad('proxy µs/req', 18)}${pad('proxy cores', 12)}${pad('upstr. cores', 13)}${'upstr. conns'}`,
    );
    for (const t of order) {
      const row = summary[s]?.[t];
      if (!row) continue;
      log(
        `${pad(TARGET_LABEL[t], 36)}${pad(fmtSpread(row.rps), 24)}${pad(fmtSpread(row.p50Ms, 2), 18)}${pad(fmtSpread(row.p99Ms, 2), 20)}${pad(fmtSpread(row.proxyCpuUsPerRequest), 18)}${pad(fmt(row.proxyCpuCores?.median, 2), 12)}${pad(fmt(row.upstreamCpuCores?.median, 2), 13)}${fmtSpread(row.upstreamConnections)}`,
      );
    }
    const bad = runs.filter((r) => r.scenario === s && (r.errors > 0 || r.statusErrors > 0));
    for (const r of bad)
      log(`  ! ${TARGET_LABEL[r.target]} round ${r.round + 1}: ${r.errors} socket errors, ${r.statusErrors} error statuses`);
  }

  log(`\nwatch of ${fmt(plan.watchEvents)} events (time from request to the last event)`);
  log(`${pad('target', 36)}${pad('ms', 26)}${pad('× direct', 10)}proxy CPU ms`);
  const direct = spread(watches.filter((w) => w.target === 'direct').map((w) => w.ms));
  for (const t of order) {
    const ws = watches.filter((w) => w.target === t);
    if (ws.length === 0) continue;
    const ms = spread(ws.map((w) => w.ms));
    const x = t === 'peerscope' ? watchRatio : direct && ms ? { median: ms.median / direct.median, min: 0, max: 0, n: 1 } : undefined;
    log(
      `${pad(TARGET_LABEL[t], 36)}${pad(fmtSpread(ms), 26)}${pad(x ? x.median.toFixed(2) : '—', 10)}${fmtSpread(spread(ws.map((w) => w.proxyCpuMs).filter((v): v is number => v !== undefined)))}`,
    );
  }

  log('\nmemory of the proxy process (MiB)');
  log(`${pad('target', 36)}${pad('idle', 10)}${pad('peak', 10)}after load`);
  for (const t of order) {
    const info = input.targets.find((x) => x.name === t);
    if (!info || t === 'direct') continue;
    log(`${pad(TARGET_LABEL[t], 36)}${pad(fmt(info.idleRssMiB, 1), 10)}${pad(fmt(info.peakRssMiB, 1), 10)}${fmt(info.afterLoadRssMiB, 1)}`);
  }

  const o = input.peerscopeOutcomes;
  const total = Object.values(o).reduce((a, b) => a + b, 0);
  if (total > 0)
    log(
      `\nPeerscope (round-robin) routed ${fmt(total)} requests: ${Object.entries(o)
        .map(([k, v]) => `${k} ${((100 * v) / total).toFixed(1)} %`)
        .join(', ')}`,
    );

  log('\nratios, taken round by round: median (min–max)');
  log(`${pad('', 44)}${pad('GET', 20)}${pad('LIST', 20)}POST`);
  // Keys are '<label>, <SCENARIO>', in the order the pairs were listed.
  for (const label of new Set(Object.keys(ratios).map((k) => k.slice(0, k.lastIndexOf(', '))))) {
    const cells = ['GET', 'LIST', 'POST'].map((s) => fmtSpread(ratios[`${label}, ${s}`], 2));
    if (cells.every((c) => c === '—')) continue;
    log(`${pad(label, 44)}${pad(cells[0] as string, 20)}${pad(cells[1] as string, 20)}${cells[2]}`);
  }

  // Is the upstream the bottleneck? Direct load must get well above what any proxy gets through.
  const best = (s: Scenario) => Math.max(...order.filter((t) => t !== 'direct').map((t) => summary[s]?.[t]?.rps?.median ?? 0));
  const d = summary.get?.direct?.rps?.median;
  if (d && best('get') > 0) {
    const psUp = summary.get?.peerscope?.upstreamCpuCores?.median;
    const cap = input.upstreamCapacity;
    log(
      `\nupstream check: direct GET ${fmt(d)} req/s (16 connections) = ${(d / best('get')).toFixed(2)}× the fastest proxy's GET${cap ? `; pushed with 2 wrk threads × 64 connections it served ${fmt(cap.rps)} req/s = ${(cap.rps / best('get')).toFixed(2)}× (using ${cap.upstreamCpuCores.toFixed(2)} cores; the load generator ${cap.loadCpuCores.toFixed(2)})` : ''}; during Peerscope's GET runs it used ${fmt(psUp, 2)} cores (${input.upstreamWorkers} worker processes)`,
    );
  }
  for (const s of input.skipped) log(`skipped ${s.target}: ${s.reason}`);

  log(`\ntargets (issue 9)${input.quick ? ' — quick mode, indicative only' : ''}`);
  for (const c of checks) {
    const status = c.ok === undefined ? 'skip' : c.ok ? 'ok  ' : 'MISS';
    const value = c.spread && c.spread.n > 1 ? fmtSpread(c.spread, 2) : fmt(c.value, 2);
    log(
      `${status}  ${pad(c.name, 48)} ${pad(`${value} ${c.unit}`, 24)} (target ${c.op} ${c.target} ${c.unit})${c.skipped ? `: ${c.skipped}` : ''}`,
    );
  }
  log(`throughput bench took ${input.seconds.toFixed(0)} s`);
}
