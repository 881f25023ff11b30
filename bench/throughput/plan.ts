// How long and how hard the throughput bench runs: the quick smoke plan, the full plan, and the
// overrides from the command line.
import type { Scenario } from './load.js';
import type { TargetName } from './targets.js';

export interface ThroughputOptions {
  readonly quick: boolean;
  /** Overrides, for experiments (`--rounds`, `--seconds`, `--connections`, `--only`). */
  readonly rounds?: number;
  readonly seconds?: number;
  readonly connections?: number;
  readonly only?: readonly TargetName[];
  readonly log?: (line: string) => void;
}

export interface Plan {
  readonly rounds: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly watchEvents: number;
  /** Rounds of watches, after the load rounds: one watch per target a round (a watch takes ~0.1 s). */
  readonly watchRounds: number;
  readonly upstreamWorkers: number;
  readonly idleSettleMs: number;
}

/**
 * Idle is the steady state of a port with nothing to do. Right after start the heap still holds the
 * start-up garbage (discovery documents read and validated); V8's memory reducer returns it about 8 s
 * after start (87 → 77 MiB measured), so the full bench reads idle RSS after 10 s.
 */
export const IDLE_SETTLE_MS = 10_000;

export function plan(o: ThroughputOptions): Plan {
  const base: Plan = o.quick
    ? {
        rounds: 1,
        seconds: 1,
        warmupSeconds: 0,
        connections: 16,
        watchEvents: 10_000,
        watchRounds: 2,
        upstreamWorkers: 2,
        idleSettleMs: 500,
      }
    : {
        rounds: 5,
        seconds: 3,
        warmupSeconds: 2,
        connections: 16,
        watchEvents: 100_000,
        watchRounds: 20,
        upstreamWorkers: 2,
        idleSettleMs: IDLE_SETTLE_MS,
      };
  return {
    ...base,
    ...(o.rounds ? { rounds: o.rounds } : {}),
    ...(o.seconds ? { seconds: o.seconds } : {}),
    ...(o.connections ? { connections: o.connections } : {}),
  };
}

export const SCENARIOS: readonly Scenario[] = ['get', 'list', 'post'];
