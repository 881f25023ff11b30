// The side-by-side throughput bench: Peerscope beside no proxy, kubectl proxy, nginx and
// a bare undici proxy, in front of the same HTTPS fake apiservers, driven by a load generator in its
// own process, in interleaved rounds after a warm-up. See docs/performance.md for what it measures
// and docs/decisions.md for why it is run this way.
//
// This file runs the rounds and measures; the parts it drives: plan.ts (how long, how hard), setup.ts
// (certificates, bundles, fake apiservers), launch-targets.ts (the targets), probes.ts (checks
// outside the load), load.ts (the load generators), report.ts and print-report.ts (the result).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findTool } from './child-processes.js';
import { launchTargets } from './launch-targets.js';
import { loadGenerator, timeWatch, type LoadGenerator, type LoadResult, type Scenario } from './load.js';
import { buildBodies } from './objects.js';
import { plan, SCENARIOS, type ThroughputOptions } from './plan.js';
import { metricsOutcomes, sanityCheck } from './probes.js';
import { cpuSeconds, procAvailable, rssMiB } from './procs.js';
import { report } from './report.js';
import type { Report, ReportInput, Run, TargetInfo, WatchRun } from './report-types.js';
import { bundle, prepareFiles, startUpstreams } from './setup.js';
import type { Target, TargetName, UpstreamProcess } from './targets.js';

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

    const load: LoadGenerator = loadGenerator(files, join(dir, 'create.json'));
    if (!findTool('wrk'))
      log('note: wrk not found on PATH: load comes from the undici load child (slower; ratios still compare like with like)');

    await launchTargets(files, [old, neu], options.only, launched, skipped, log);
    // Idle: started, discovery read, no request served yet.
    await new Promise((r) => setTimeout(r, p.idleSettleMs));
    const idle = new Map(launched.map((t) => [t.name, t.direct ? undefined : rssMiB(t.pids())]));
    for (const t of launched) {
      try {
        await sanityCheck(t, files, bodies.object.length);
        targets.push(t);
        infos.set(t.name, {
          name: t.name,
          idleRssMiB: idle.get(t.name),
          peakRssMiB: undefined,
          endOfLoadRssMiB: undefined,
          afterLoadRssMiB: undefined,
        });
      } catch (err) {
        skipped.push({ target: t.name, reason: (err as Error).message });
        log(`skip  ${t.name}: ${(err as Error).message}`);
      }
    }

    const runs: Run[] = [];
    const watches: WatchRun[] = [];
    /** When each proxy's last request of the last round ended. */
    const lastLoadEnded = new Map<TargetName, number>();
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
      for (const scenario of SCENARIOS) for (const t of targets) if (!t.watchOnly) await measure(t, scenario, -1, p.warmupSeconds);
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
        for (const t of order(round)) if (!t.watchOnly) runs.push(await measure(t, scenario, round, p.seconds));
      }
      log(`round ${round + 1}/${p.rounds} done in ${((Date.now() - roundStarted) / 1000).toFixed(0)} s`);
    }
    // The watches in rounds of their own, one watch per target a round: right after a load the
    // upstream and this process still settle for a while, and a direct watch timed then took 134–143 ms
    // instead of 66–86 — a slower baseline that made every proxy's ratio look better than it is.
    const watchesStarted = Date.now();
    for (let round = 0; round < p.watchRounds; round++) {
      for (const t of order(round)) {
        const pids = t.pids();
        const cpu0 = cpuSeconds(pids);
        const w = await timeWatch(t, files, p.watchEvents);
        const info = infos.get(t.name);
        if (info && !t.direct && round === p.watchRounds - 1) {
          info.endOfLoadRssMiB = rssMiB(pids);
          lastLoadEnded.set(t.name, Date.now());
        }
        watches.push({
          target: t.name,
          round,
          ms: w.ms,
          events: w.events,
          bytes: w.bytes,
          proxyCpuMs: t.direct ? undefined : (cpuSeconds(pids) - cpu0) * 1000,
        });
      }
    }
    log(`${p.watchRounds} rounds of watches done in ${((Date.now() - watchesStarted) / 1000).toFixed(0)} s`);
    // What each proxy keeps once the burst is over, read as idle is: settled, at least
    // idleSettleMs after its own last request (the memory reducer starts ~8 s after allocation stops).
    const lastEnded = Math.max(0, ...lastLoadEnded.values());
    await new Promise((r) => setTimeout(r, Math.max(0, lastEnded + p.idleSettleMs - Date.now())));
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
