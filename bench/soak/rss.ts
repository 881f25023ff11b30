// The port process's resident set size over a long soak, sampled from /proc, and the verdict the
// long soak gives on it: growth after warm-up, as the median of a window just after warm-up against
// the median of the last window (medians, so one garbage-collection swing does not decide it).
import { readFileSync } from 'node:fs';

export interface RssSample {
  /** Seconds since the soak started. */
  readonly t: number;
  readonly rssMiB: number;
}

export function rssMiBOf(pid: number): number | undefined {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Number.isFinite(kb) && kb > 0 ? kb / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples `pid` every `everyMs` until stop(). */
export function sampleRss(pid: number, everyMs = 2_000): { samples: RssSample[]; stop(): void } {
  const started = performance.now();
  const samples: RssSample[] = [];
  const take = () => {
    const rssMiB = rssMiBOf(pid);
    if (rssMiB !== undefined) samples.push({ t: (performance.now() - started) / 1000, rssMiB });
  };
  take();
  const timer = setInterval(take, everyMs);
  return { samples, stop: () => clearInterval(timer) };
}

export interface RssGrowth {
  readonly warmupSeconds: number;
  readonly windowSeconds: number;
  /** Median RSS in the window right after warm-up. */
  readonly afterWarmupMiB: number;
  /** Median RSS in the last window. */
  readonly endMiB: number;
  readonly peakMiB: number;
  /** (end − after warm-up) / after warm-up, in percent. */
  readonly growthPercent: number;
  readonly samples: number;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/**
 * Warm-up is the first fifth of the run, at least a minute when the run allows (at most 5 min); the
 * windows compared are a tenth of the run each, between 10 s and 2 min.
 */
export function rssGrowth(samples: readonly RssSample[], totalSeconds: number): RssGrowth {
  if (samples.length === 0) throw new Error('no RSS sample was taken');
  const warmupSeconds = Math.min(300, Math.max(Math.min(60, totalSeconds / 3), totalSeconds / 5));
  const windowSeconds = Math.min(120, Math.max(10, totalSeconds / 10));
  const last = (samples.at(-1) as RssSample).t;
  const early = samples.filter((s) => s.t >= warmupSeconds && s.t < warmupSeconds + windowSeconds).map((s) => s.rssMiB);
  const late = samples.filter((s) => s.t > last - windowSeconds).map((s) => s.rssMiB);
  const afterWarmupMiB = median(early.length ? early : [samples[Math.floor(samples.length / 3)]?.rssMiB ?? 0]);
  const endMiB = median(late);
  return {
    warmupSeconds,
    windowSeconds,
    afterWarmupMiB,
    endMiB,
    peakMiB: Math.max(...samples.map((s) => s.rssMiB)),
    growthPercent: ((endMiB - afterWarmupMiB) / afterWarmupMiB) * 100,
    samples: samples.length,
  };
}
