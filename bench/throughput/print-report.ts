// The printed throughput report: one table per scenario, the watch, memory, Peerscope's routing,
// the ratios, the upstream check, and the targets with ok / MISS / skip.
import { cpus } from 'node:os';
import type { Scenario } from './load.js';
import type { Check, Report, ReportInput } from './report-types.js';
import { fmt, fmtSpread, spread, type Spread } from './stats.js';
import { TARGET_LABEL, type TargetName } from './targets.js';

const SCENARIO_LABEL: Record<Scenario, string> = { get: 'GET one object', list: 'LIST', post: 'POST (create)' };

function kb(bytes: number): string {
  return bytes >= 1_000_000 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1000).toFixed(1)} KB`;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s + ' ' : s.padEnd(n);
}

export function printReport(
  input: ReportInput,
  summary: Report['summary'],
  ratios: Report['ratios'],
  watchRatio: Spread | undefined,
  checks: readonly Check[],
  log: (line: string) => void,
): void {
  const { plan, runs, watches } = input;
  const order = (
    ['direct', 'peerscope', 'peerscope-local', 'kubectl', 'nginx', 'bare-undici', 'node-floor', 'node-pipe'] as TargetName[]
  ).filter((t) => input.targets.some((x) => x.name === t));
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

  log(
    `\nwatch of ${fmt(plan.watchEvents)} events (time from request to the last event; ${plan.watchRounds} rounds of their own after the load, targets interleaved)`,
  );
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

  log(
    `\nmemory of the proxy process (MiB; idle and after load read ${(plan.idleSettleMs / 1000).toFixed(0)} s or more after the last request)`,
  );
  log(`${pad('target', 36)}${pad('idle', 10)}${pad('peak', 10)}${pad('end of load', 13)}after load (settled)`);
  for (const t of order) {
    const info = input.targets.find((x) => x.name === t);
    if (!info || t === 'direct') continue;
    log(
      `${pad(TARGET_LABEL[t], 36)}${pad(fmt(info.idleRssMiB, 1), 10)}${pad(fmt(info.peakRssMiB, 1), 10)}${pad(fmt(info.endOfLoadRssMiB, 1), 13)}${fmt(info.afterLoadRssMiB, 1)}`,
    );
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

  log(`\ntargets (judged on medians)${input.quick ? ' — quick mode, indicative only' : ''}`);
  for (const c of checks) {
    const status = c.ok === undefined ? 'skip' : c.ok ? 'ok  ' : 'MISS';
    const value = c.spread && c.spread.n > 1 ? fmtSpread(c.spread, 2) : fmt(c.value, 2);
    log(
      `${status}  ${pad(c.name, 48)} ${pad(`${value} ${c.unit}`, 24)} (target ${c.op} ${c.target} ${c.unit})${c.skipped ? `: ${c.skipped}` : ''}`,
    );
  }
  log(`throughput bench took ${input.seconds.toFixed(0)} s`);
}
