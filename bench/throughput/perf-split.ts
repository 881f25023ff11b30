// The kernel's view of where a proxy's CPU goes: `perf record` samples every thread of the process on
// the CPU clock (kernel and user space alike), then each sample is put in one bucket by its call chain.
// V8's --cpu-prof samples the main thread on a wall-clock timer, so a thread that waits inside a write
// system call (descheduled while the kernel delivers to the reader) shows as time in `writev`; this
// split counts only time on a CPU. Needs `perf` (Debian: linux-perf) and perf_event_paranoid ≤ 2.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface PerfRecording {
  stop(): Promise<void>;
}

/**
 * Starts sampling `pid` (all its threads) into `file` `hz` times a second; undefined when perf is not
 * installed. Each sample costs the process a few µs in this VM (a timer interrupt is a VM exit).
 */
export async function startPerf(pid: number, file: string, hz = 4000): Promise<PerfRecording | undefined> {
  if (spawnSync('perf', ['--version']).status !== 0) return undefined;
  const child: ChildProcess = spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', String(hz), '-g', '-o', file, '-p', String(pid)], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // perf needs a moment to attach to every thread before the load starts.
  await new Promise((r) => setTimeout(r, 400));
  return {
    async stop() {
      child.kill('SIGINT');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

/** One sample: the thread it was taken on and its frames, innermost first. */
interface Sample {
  tid: string;
  frames: string[];
}

function readSamples(file: string): Sample[] {
  const out = spawnSync('perf', ['script', '-i', file, '-F', 'tid,ip,sym'], { maxBuffer: 1 << 30, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`perf script failed: ${out.stderr}`);
  const samples: Sample[] = [];
  let current: Sample | undefined;
  for (const line of out.stdout.split('\n')) {
    if (line.trim() === '') {
      if (current) samples.push(current);
      current = undefined;
    } else if (!line.startsWith('\t')) current = { tid: line.trim().split(/\s+/)[0] ?? '', frames: [] };
    else current?.frames.push(line.trim().replace(/^[0-9a-f]+\s*/, ''));
  }
  if (current) samples.push(current);
  return samples;
}

/** The buckets, checked in order: the first that matches a sample's chain takes it. */
const BUCKETS: readonly (readonly [string, (frames: readonly string[], chain: string) => boolean])[] = [
  ['socket writes (kernel: send, loopback delivery to the reader)', (_, c) => /do_writev|ksys_write|__sys_sendto/.test(c)],
  ['socket reads (kernel: copy to user space)', (_, c) => /ksys_read|__sys_recvfrom/.test(c)],
  ['waiting for events (epoll)', (_, c) => c.includes('epoll')],
  [
    'TLS (OpenSSL: cipher, record copies)',
    (f, c) => /aesni|gcm_|ghash/.test(f[0] ?? '') || (/SSL_(read|write)|ssl3_/.test(c) && !c.includes('CallJSOnread')),
  ],
  ['garbage collector', (_, c) => /Heap::|Scaveng|MarkCompact|ConcurrentMarking/.test(c)],
  ['malloc / free', (f) => /malloc|free|unlink_chunk|_int_/.test(f[0] ?? '')],
  ['memory copies (memmove)', (f) => /memmove|memcpy/.test(f[0] ?? '')],
  ['kernel: interrupts, scheduling', (f) => /^(_raw_spin|finish_task|handle_softirq|irqentry|__schedule)/.test(f[0] ?? '')],
  ['JavaScript, V8 and Node glue', () => true],
];

export interface PerfSplit {
  readonly samples: number;
  /** Share of the samples per bucket, main thread; other threads in lines of their own. */
  readonly shares: ReadonlyMap<string, number>;
  /** Share of the samples per innermost function (self time), every thread; V8's `*` (optimised) and `~` (interpreted) marks kept. */
  readonly selfShares: ReadonlyMap<string, number>;
}

/** A helper thread's sample: V8's optimising compiler, the garbage collector's helpers, or the rest. */
function otherThreadBucket(chain: string): string {
  if (/compiler::|Turbofan|OptimizedCompilationJob|Maglev/.test(chain)) return 'other threads: V8 compiling optimised code';
  if (/Scaveng|Marking|MarkCompact|Sweep|Evacuat|Heap::|Collect/.test(chain)) return 'other threads: garbage collector helpers';
  return 'other threads: the rest (libuv pool, V8 platform, kernel)';
}

/** Buckets the samples of `file`; the busiest thread is taken for the event loop. */
export function splitPerf(file: string): PerfSplit {
  const samples = readSamples(file);
  const perThread = new Map<string, number>();
  for (const s of samples) perThread.set(s.tid, (perThread.get(s.tid) ?? 0) + 1);
  const main = [...perThread].sort((a, b) => b[1] - a[1])[0]?.[0];
  const counts = new Map<string, number>();
  const add = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
  const self = new Map<string, number>();
  for (const s of samples) {
    const sym = (s.frames[0] ?? '[unknown]').replace(/\s*\(.*\)$/, '');
    self.set(sym, (self.get(sym) ?? 0) + 1);
    if (s.tid !== main) {
      add(otherThreadBucket(s.frames.join(' | ')));
      continue;
    }
    const chain = s.frames.join(' | ');
    add(BUCKETS.find(([, matches]) => matches(s.frames, chain))?.[0] ?? 'JavaScript, V8 and Node glue');
  }
  const shares = new Map<string, number>();
  for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1])) shares.set(k, v / samples.length);
  const selfShares = new Map([...self].map(([k, v]) => [k, v / samples.length]));
  return { samples: samples.length, shares, selfShares };
}

/** Prints the split scaled to a measured cost (µs per request, ms per watch). */
export function printPerfSplit(split: PerfSplit, cost: { value: number; unit: string }): void {
  console.log(`CPU by kernel samples (perf, ${split.samples} samples, every thread), ${cost.unit}:`);
  for (const [k, share] of split.shares)
    console.log(`${(cost.value * share).toFixed(1).padStart(7)}  ${(100 * share).toFixed(1).padStart(5)} %  ${k}`);
}
