// Summaries (median and spread over rounds), ratios taken round by round and the targets of issue 9
// judged ok / MISS; print-report.ts prints them.
import type { Scenario } from './load.js';
import { printReport } from './print-report.js';
import type { Check, Report, ReportInput, Run } from './report-types.js';
import { fmt, roundRatios, spread, type Spread } from './stats.js';
import type { TargetName } from './targets.js';

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

  printReport(input, summary, ratios, watchRatio, checks, log);
  return { ...input, summary, ratios, checks };
}
