// The long rollout soak (`npm run bench -- --soak-minutes N`): `peerscope serve` in its own process
// in front of three simulated HTTPS apiservers, while rollouts go back and forth between v1.36-dev
// and v1.37-dev, one server at a time, for N minutes under ~200 requests/s of the traffic generator
// (controllers that list and watch, writes, the namespace sweep). Every rollout is judged like the
// soak in the test suite (sim/traffic/judge.ts) and the port's RSS is sampled throughout: growth
// after warm-up must stay within 10 %.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadRelease } from '../../proxy-core/engine/releases/index.js';
import { startSimCluster } from '../../proxy-core/sim/index.js';
import { runRollout, type RolloutOptions } from '../../proxy-core/sim/rollout.js';
import { startTraffic, type TrafficResult } from '../../proxy-core/sim/traffic/index.js';
import { followReadiness, judgeRun, recordStoreChanges, type Judgement } from '../../proxy-core/sim/traffic/judge.js';
import { rssGrowth, sampleRss, type RssGrowth, type RssSample } from './rss.js';

export const RSS_GROWTH_TARGET_PERCENT = 10;

export interface LongSoakOptions {
  readonly minutes: number;
  readonly rps?: number;
  /** Rollout phases; the default leaves the port's 2 s probe time to see each. */
  readonly phases?: Pick<RolloutOptions, 'drainSeconds' | 'downSeconds' | 'upSettleSeconds'>;
  readonly log?: (line: string) => void;
}

export interface CycleFigures extends Omit<Judgement, 'examples' | 'byStatus' | 'watchLoss'> {
  readonly cycle: number;
  readonly to: string;
  readonly seconds: number;
  readonly watchesLost: number;
  readonly rssMiB: number;
  readonly examples: string[];
}

export interface LongSoakResult {
  readonly minutes: number;
  readonly cycles: CycleFigures[];
  readonly rss: RssGrowth;
  readonly samples: RssSample[];
  readonly totals: {
    requests: number;
    falseNotFound: number;
    falseNotFoundStrict: number;
    unjustified503: number;
    lostWrites: number;
    duplicateWrites: number;
    watchesOpened: number;
    watchesErrored: number;
    watchesResumed: number;
    watchesLost: number;
  };
  /** The port process exited before the end. */
  readonly crashed?: string;
}

const FROM = loadRelease('v1.36-dev');
const TO = loadRelease('v1.37-dev');
/** The port probes every 2 s by default: the slack around a state change covers a probe and a bit. */
const SLACK_MS = 2_500;

export async function longSoak(options: LongSoakOptions): Promise<LongSoakResult> {
  const log = options.log ?? (() => undefined);
  const phases = options.phases ?? { drainSeconds: 2, downSeconds: 2, upSettleSeconds: 1 };
  const sim = await startSimCluster({ releases: [FROM, FROM, FROM] });
  const dir = mkdtempSync(join(tmpdir(), 'peerscope-soak-'));
  writeFileSync(join(dir, 'ca.crt'), sim.ca ?? '');
  writeFileSync(join(dir, 'token'), `${sim.token}\n`);
  const child = spawn(
    process.execPath,
    [
      'bin/peerscope',
      'serve',
      ...sim.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]),
      '--ca',
      join(dir, 'ca.crt'),
      '--token-file',
      join(dir, 'token'),
      '--listen',
      '127.0.0.1:0',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  let exited: string | undefined;
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-10_000)));
  child.on('exit', (code, signal) => (exited = `exit code ${code}, signal ${signal}`));
  const cycles: CycleFigures[] = [];
  let rss: ReturnType<typeof sampleRss> | undefined;
  try {
    const first = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', () => reject(new Error(`peerscope serve exited before listening: ${stderr}`)));
    });
    const url = `http://127.0.0.1:${/:(\d+)$/.exec(first)?.[1]}`;
    rss = sampleRss(child.pid as number);
    const started = performance.now();
    const deadline = started + options.minutes * 60_000;
    log(
      `long soak: ${options.minutes} min of rollouts v1.36-dev ⇄ v1.37-dev (drain ${phases.drainSeconds} s, down ${phases.downSeconds} s, settle ${phases.upSettleSeconds} s) under ~${options.rps ?? 200} requests/s through peerscope serve (pid ${child.pid})`,
    );
    for (let cycle = 1; performance.now() < deadline && !exited; cycle++) {
      const to = cycle % 2 === 1 ? TO : FROM;
      const cycleStart = performance.now();
      const readiness = followReadiness(sim);
      const store = recordStoreChanges(sim.store, [FROM, TO]);
      const results: TrafficResult[] = [];
      const traffic = startTraffic({
        targets: [url],
        ca: sim.ca!,
        token: sim.token!,
        rps: options.rps ?? 200,
        releases: [FROM, TO],
        seed: cycle,
        watches: 6,
        onResult: (r) => results.push(r),
      });
      await sleep(1_000);
      await runRollout(sim.servers, to, phases);
      await sleep(1_000);
      const summary = await traffic.stop();
      store.stop();
      readiness.stop();
      const j = judgeRun({
        results,
        summary,
        intervals: readiness.intervals(),
        store: sim.store,
        changes: store.changes,
        slackMs: SLACK_MS,
        judge503: true,
      });
      // Each cycle starts from the same store: what it created and did not delete goes.
      const deleted = new Set(summary.writes.filter((w) => w.op === 'delete').map((w) => w.name));
      for (const w of summary.writes) {
        if (w.op !== 'create' || deleted.has(w.name) || w.gvr === '/v1/namespaces') continue;
        const [group = '', , resource = ''] = w.gvr.split('/');
        try {
          sim.store.delete({ group, resource }, w.namespace, w.name);
        } catch {
          // already gone
        }
      }
      const { examples, byStatus: _byStatus, watchLoss, ...figures } = j;
      const c: CycleFigures = {
        ...figures,
        cycle,
        to: to.release,
        seconds: (performance.now() - cycleStart) / 1000,
        watchesLost: watchLoss.lost.length,
        rssMiB: rss.samples.at(-1)?.rssMiB ?? 0,
        examples,
      };
      cycles.push(c);
      log(cycleLine(c, (performance.now() - started) / 1000));
      for (const e of examples) log(`      ${e}`);
    }
    rss.stop();
    const totalSeconds = (performance.now() - started) / 1000;
    const growth = rssGrowth(rss.samples, totalSeconds);
    const sum = (f: (c: CycleFigures) => number) => cycles.reduce((n, c) => n + f(c), 0);
    return {
      minutes: options.minutes,
      cycles,
      rss: growth,
      samples: rss.samples,
      totals: {
        requests: sum((c) => c.requests),
        falseNotFound: sum((c) => c.falseNotFound),
        falseNotFoundStrict: sum((c) => c.falseNotFoundStrict),
        unjustified503: sum((c) => c.unjustified503),
        lostWrites: sum((c) => c.lostWrites),
        duplicateWrites: sum((c) => c.duplicateWrites),
        watchesOpened: sum((c) => c.watches.opened),
        watchesErrored: sum((c) => c.watches.errored),
        watchesResumed: sum((c) => c.watches.resumed),
        watchesLost: sum((c) => c.watchesLost),
      },
      ...(exited ? { crashed: `${exited}: ${stderr}` } : {}),
    };
  } finally {
    rss?.stop();
    if (!exited) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function cycleLine(c: CycleFigures, at: number): string {
  const w = c.watches;
  return `  #${String(c.cycle).padStart(3)} ${fmtClock(at)} → ${c.to.padEnd(10)} requests ${String(c.requests).padStart(5)}  false 404 ${c.falseNotFound} (strict ${c.falseNotFoundStrict})  503 ${c.all503} (unjustified ${c.unjustified503})  lost writes ${c.lostWrites}  duplicated ${c.duplicateWrites}  watches ${w.opened} opened, ${w.errored} errored, ${w.resumed} resumed, ${c.watchesLost} changes lost  RSS ${c.rssMiB.toFixed(1)} MiB`;
}

function fmtClock(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = Math.floor(seconds % 60);
  return `${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
