// What the resident memory of `peerscope serve` is made of after load, and an interleaved A/B of
// environment settings for it (the same upstream and load as the throughput bench).
//
//   npx tsx bench/memory/main.ts [--rounds 5] [--seconds 6] [--watches 0] [--variants default,node-floor,bare-undici,malloc-fixed-thresholds,cli=OLD/bin/peerscope]
// Each round starts a fresh port per variant (variants in a rotated order), loads it with GET, LIST and
// POST, then prints RSS (/proc) 0–20 s after the load, and at --split-at seconds the split (probe.mjs)
// and RSS by kind of mapping (smaps.ts: Node's binary, malloc's heaps, V8's pages).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundle, prepareFiles, startUpstreams } from '../throughput/setup.js';
import { loadGenerator, timeWatch, type Scenario } from '../throughput/load.js';
import { flag } from '../throughput/args.js';
import { rssMiB } from '../throughput/procs.js';
import { formatRssByKind } from './smaps.js';
import { startBareUndici, startNodeFloor, startPeerscope } from '../throughput/node-targets.js';
import type { UpstreamProcess } from '../throughput/targets.js';

const rounds = Number(flag('--rounds', '5'));
const seconds = Number(flag('--seconds', '6'));
const MiB = 1024 * 1024;
/** Seconds after the load at which RSS is printed, and the one the split (and the median) is read at. */
const AFTER_LOAD_S = [0, 5, 10, 15, 20];
const SPLIT_AT_S = Number(flag('--split-at', '5'));
/** 100,000-event watches after the load, as the bench's rounds of watches follow its load. */
const watches = Number(flag('--watches', '0'));

/** What runs in a variant: which proxy, with which environment and node flags. */
interface Variant {
  readonly proxy: 'peerscope' | 'node-floor' | 'bare-undici';
  readonly env?: Record<string, string>;
  readonly nodeFlags?: readonly string[];
  /** Another build's CLI (a bin/peerscope built from another commit). */
  readonly cli?: string;
}

const ALL_VARIANTS: Record<string, Variant> = {
  default: { proxy: 'peerscope' },
  'malloc-fixed-thresholds': {
    proxy: 'peerscope',
    env: { MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_ARENA_MAX: '2' },
  },
  'memory-reducer-off': { proxy: 'peerscope', nodeFlags: ['--no-memory-reducer'] },
  'node-floor': { proxy: 'node-floor' },
  'bare-undici': { proxy: 'bare-undici' },
};
// `--variants default,node-floor` picks some; the default is the malloc A/B.
const VARIANTS = Object.fromEntries(
  flag('--variants', 'default,malloc-fixed-thresholds')
    .split(',')
    .map((name) => {
      // `cli=OLD/bin/peerscope`: the default variant, run from another build.
      const v = name.startsWith('cli=') ? { proxy: 'peerscope' as const, cli: name.slice(4) } : ALL_VARIANTS[name];
      if (!v) throw new Error(`unknown variant ${name}; known: ${Object.keys(ALL_VARIANTS).join(', ')}`);
      return [name, v];
    }),
);

const dir = mkdtempSync(join(tmpdir(), 'peerscope-memory-'));
const upstreams: UpstreamProcess[] = [];
const results: Record<string, number[][]> = {};
try {
  const files = await prepareFiles(dir);
  await bundle(files.buildDir);
  const [old, neu] = await startUpstreams(files, 2, 100_000, upstreams);
  const load = loadGenerator(files, join(dir, 'create.json'));
  const names = Object.keys(VARIANTS);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(r + k) % names.length] as string;
      const probeFile = join(dir, `${name.replace(/[^\w.-]/g, '_')}.json`);
      const variant = VARIANTS[name] as Variant;
      const env = { ...variant.env, PEERSCOPE_MEMPROBE: probeFile };
      const flags = [...(variant.nodeFlags ?? []), '--import', resolve('bench/memory/probe.mjs')];
      const target =
        variant.proxy === 'peerscope'
          ? await startPeerscope(files, [old!, neu!], 'peerscope', flags, env, variant.cli)
          : variant.proxy === 'node-floor'
            ? await startNodeFloor(files, neu!, flags, env)
            : await startBareUndici(files, neu!, flags, env);
      try {
        for (const s of ['get', 'list', 'post'] as Scenario[]) await load.run(target, s, { connections: 16, durationSeconds: seconds / 3 });
        for (let w = 0; w < watches; w++) await timeWatch(target, files, 100_000);
        // RSS over the seconds after the load (V8's memory reducer starts ~8 s after allocation slows);
        // the split is read at SPLIT_AT_S, as the bench reads RSS after load.
        const timeline: string[] = [];
        let row: number[] = [];
        for (let at = 0; at <= AFTER_LOAD_S[AFTER_LOAD_S.length - 1]!; at++) {
          if (AFTER_LOAD_S.includes(at)) timeline.push(`${at} s: ${rssMiB(target.pids()).toFixed(1)}`);
          if (at === SPLIT_AT_S) {
            await sleep(600); // a probe sample taken after this second began
            const m = JSON.parse(readFileSync(probeFile, 'utf8'));
            for (const pid of target.pids()) console.log(`round ${r + 1} ${name}: RSS by mapping (MiB): ${formatRssByKind(pid)}`);
            row = [
              rssMiB(target.pids()),
              m.heapTotal / MiB,
              m.heapUsed / MiB,
              m.spaces.new_space / MiB,
              m.external / MiB,
              m.arrayBuffers / MiB,
            ];
            await sleep(400);
          } else await sleep(1000);
        }
        const rss = row[0]!;
        console.log(`round ${r + 1} ${name}: RSS after the load (MiB) at ${timeline.join(', ')}`);
        (results[name] ??= []).push(row);
        console.log(
          `round ${r + 1} ${name}: RSS ${rss.toFixed(1)} MiB; heapTotal ${row[1]!.toFixed(1)}, heapUsed ${row[2]!.toFixed(1)}, new space ${row[3]!.toFixed(1)}, external ${row[4]!.toFixed(1)} (ArrayBuffers ${row[5]!.toFixed(1)}); rest (code, stacks, malloc) ${(rss - row[1]! - row[4]!).toFixed(1)}`,
        );
      } finally {
        await target.stop();
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  for (const [name, rows] of Object.entries(results)) {
    const col = (i: number) => rows.map((x) => x[i] as number);
    console.log(
      `${name}: RSS after load median ${median(col(0)).toFixed(1)} MiB (${Math.min(...col(0)).toFixed(1)}–${Math.max(...col(0)).toFixed(1)}), heapTotal ${median(col(1)).toFixed(1)}, new space ${median(col(3)).toFixed(1)}, rest ${median(rows.map((x) => (x[0] as number) - (x[1] as number) - (x[4] as number))).toFixed(1)}`,
    );
  }
} finally {
  await Promise.all(upstreams.map((u) => u.stop()));
  rmSync(dir, { recursive: true, force: true });
}
