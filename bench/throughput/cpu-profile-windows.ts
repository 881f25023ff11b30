// Reads a V8 .cpuprofile (node --cpu-prof) for chosen stretches of time only: the samples taken between
// given CLOCK_MONOTONIC instants (process.hrtime in the bench, V8's own clock in the profile), counted
// per function by self and inclusive time. V8 rebuilds inlined frames from its source positions, so a
// function inlined into another still has its own line here, unlike in a `perf` profile.
import { readFileSync } from 'node:fs';

/** One node of a .cpuprofile's call tree. */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A stretch of time in µs of CLOCK_MONOTONIC (`process.hrtime.bigint() / 1000n`). */
export interface Window {
  readonly fromUs: number;
  readonly toUs: number;
}

export interface WindowedProfile {
  /** Samples inside the windows that were not idle. */
  readonly busy: number;
  readonly self: ReadonlyMap<string, number>;
  readonly inclusive: ReadonlyMap<string, number>;
}

export function nowUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** How a function is named in the bench's profile listings: name, file (from node_modules/, dist/ or node:), line. */
export function functionKey(f: ProfileNode['callFrame']): string {
  return `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules\/|dist\/|node:)/, '$1')}:${f.lineNumber + 1}`;
}

export function readWindows(file: string, windows: readonly Window[]): WindowedProfile {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Each node's distinct functions from the root down, computed once per node.
  const stacks = new Map<number, readonly string[]>();
  const stackOf = (id: number): readonly string[] => {
    let s = stacks.get(id);
    if (s) return s;
    const up = parent.get(id);
    const own = functionKey(byId.get(id)!.callFrame);
    const above = up === undefined ? [] : stackOf(up);
    s = above.includes(own) ? above : [...above, own];
    stacks.set(id, s);
    return s;
  };
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (!windows.some((w) => t >= w.fromUs && t < w.toUs)) continue;
    const id = profile.samples[i] as number;
    const name = byId.get(id)!.callFrame.functionName;
    if (name === '(idle)') continue;
    busy++;
    const leaf = functionKey(byId.get(id)!.callFrame);
    self.set(leaf, (self.get(leaf) ?? 0) + 1);
    for (const k of stackOf(id)) inclusive.set(k, (inclusive.get(k) ?? 0) + 1);
  }
  return { busy, self, inclusive };
}
