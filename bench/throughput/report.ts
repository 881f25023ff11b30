// Summaries (median and spread over rounds), ratios taken round by round and the targets
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

/** The per-round figures a ratio can be taken of. */
type RoundMetric = 'rps' | 'p99Ms' | 'proxyCpuUsPerRequest';

function byRound(runs: readonly Run[], target: TargetName, scenario: Scenario, metric: RoundMetric): Map<number, number> {
  const out = new Map<number, number>();
  for (const r of runs) {
    const v = r[metric];
    if (r.target === target && r.scenario === scenario && v !== undefined) out.set(r.round, v);
  }
  return out;
}

/** A check judged on the median; undefined (printed as skip) when what it needs was not measured. */
function judged(name: string, op: '≥' | '≤', target: number, unit: string, sp: Spread | undefined, skipped: string | undefined): Check {
  return {
    name,
    op,
    target,
    unit,
    value: sp?.median,
    ...(sp ? { spread: sp } : {}),
    ok: sp ? (op === '≥' ? sp.median >= target : sp.median <= target) : undefined,
    ...(skipped ? { skipped } : {}),
  };
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

  const ratioOf = (a: TargetName, b: TargetName, s: Scenario, metric: RoundMetric = 'rps') =>
    present.has(a) && present.has(b) ? spread(roundRatios(byRound(runs, a, s, metric), byRound(runs, b, s, metric))) : undefined;
  const ratios: Report['ratios'] = {};
  const pairs: [string, TargetName, TargetName, RoundMetric][] = [
    ['Peerscope / kubectl proxy, req/s', 'peerscope', 'kubectl', 'rps'],
    ['Peerscope / nginx, req/s', 'peerscope', 'nginx', 'rps'],
    ['Peerscope / bare undici, req/s', 'peerscope', 'bare-undici', 'rps'],
    ['Peerscope local-only / bare undici, req/s', 'peerscope-local', 'bare-undici', 'rps'],
    ['Peerscope / direct, req/s', 'peerscope', 'direct', 'rps'],
    ['Peerscope / nginx, p99', 'peerscope', 'nginx', 'p99Ms'],
    ['Peerscope / kubectl proxy, p99', 'peerscope', 'kubectl', 'p99Ms'],
    ['Peerscope / kubectl proxy, proxy CPU per request', 'peerscope', 'kubectl', 'proxyCpuUsPerRequest'],
    ['Peerscope / Node floor, proxy CPU per request', 'peerscope', 'node-floor', 'proxyCpuUsPerRequest'],
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

  // The targets: ahead of kubectl proxy on every shape, within 10 % of the Node floor,
  // the watch near the direct time, and memory. The older targets against nginx and "2× kubectl proxy"
  // lie below what any Node proxy reaches here (docs/performance.md); their ratios stay printed above.
  const checks: Check[] = [];
  const ratioCheck = (name: string, a: TargetName, b: TargetName, s: Scenario, op: '≥' | '≤', target: number, metric: RoundMetric) => {
    if (!scenarios.includes(s)) return;
    const sp = ratioOf(a, b, s, metric);
    const missing = [a, b].filter((t) => !present.has(t));
    checks.push(judged(name, op, target, '×', sp, missing.length ? `${missing.join(', ')} not measured` : undefined));
  };
  const shapes = (['get', 'list', 'post'] as const).filter((s) => scenarios.includes(s));
  for (const s of shapes) {
    const S = s.toUpperCase();
    ratioCheck(`${S}: Peerscope / kubectl proxy, req/s`, 'peerscope', 'kubectl', s, '≥', 1.1, 'rps');
    ratioCheck(`${S}: Peerscope / kubectl proxy, proxy CPU per request`, 'peerscope', 'kubectl', s, '≤', 1.0, 'proxyCpuUsPerRequest');
    ratioCheck(`${S}: Peerscope / kubectl proxy, p99`, 'peerscope', 'kubectl', s, '≤', 1.0, 'p99Ms');
    ratioCheck(`${S}: Peerscope / Node floor, req/s`, 'peerscope', 'node-floor', s, '≥', 0.9, 'rps');
  }
  const watchBy = (t: TargetName, metric: 'ms' | 'proxyCpuMs') =>
    new Map(watches.filter((w) => w.target === t && w[metric] !== undefined).map((w) => [w.round, w[metric] as number]));
  const watchCpu =
    present.has('peerscope') && present.has('kubectl')
      ? spread(roundRatios(watchBy('peerscope', 'proxyCpuMs'), watchBy('kubectl', 'proxyCpuMs')))
      : undefined;
  checks.push(
    judged(
      `watch of ${fmt(plan.watchEvents)} events: Peerscope / direct, time`,
      '≤',
      1.05,
      '×',
      watchRatio,
      present.has('direct') ? undefined : 'direct not measured',
    ),
  );
  checks.push(
    judged(
      'watch: Peerscope / kubectl proxy, proxy CPU',
      '≤',
      1.0,
      '×',
      watchCpu,
      present.has('kubectl') ? undefined : 'kubectl not measured',
    ),
  );
  const ps = input.targets.find((t) => t.name === 'peerscope');
  const mib = (v: number | undefined) => (v === undefined ? undefined : { median: v, min: v, max: v, n: 1 });
  checks.push(judged('Peerscope RSS idle (2 servers)', '≤', 70, 'MiB', mib(ps?.idleRssMiB), ps ? undefined : 'peerscope not measured'));
  checks.push(judged('Peerscope RSS after load', '≤', 100, 'MiB', mib(ps?.afterLoadRssMiB), ps ? undefined : 'peerscope not measured'));

  printReport(input, summary, ratios, watchRatio, checks, log);
  return { ...input, summary, ratios, checks };
}
