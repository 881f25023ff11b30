// The shape of a throughput bench result: what was measured (runs, watches, memory), what the
// report adds (summaries, ratios, the checks). Shared by the bench, the report and its printer.
import type { Scenario } from './load.js';
import type { Spread } from './stats.js';
import type { TargetName } from './targets.js';

export interface Run {
  readonly target: TargetName;
  readonly scenario: Scenario;
  readonly round: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  /** Connect, read, write errors and timeouts seen by the load generator. */
  readonly errors: number;
  /** Answers with a status ≥ 400. */
  readonly statusErrors: number;
  readonly proxyCpuUsPerRequest: number | undefined;
  /** CPU seconds per wall second of the proxy process (1.0 = one core busy). */
  readonly proxyCpuCores: number | undefined;
  readonly upstreamCpuUsPerRequest: number;
  readonly upstreamCpuCores: number;
  readonly loadCpuCores: number;
  readonly upstreamConnections: number;
  readonly upstreamRequests: number;
}

export interface WatchRun {
  readonly target: TargetName;
  readonly round: number;
  readonly ms: number;
  readonly events: number;
  readonly bytes: number;
  readonly proxyCpuMs: number | undefined;
}

export interface TargetInfo {
  readonly name: TargetName;
  readonly idleRssMiB: number | undefined;
  peakRssMiB: number | undefined;
  /** Right after its last request of the last round. */
  endOfLoadRssMiB: number | undefined;
  /** Settled: at least the idle settle time after its last request. */
  afterLoadRssMiB: number | undefined;
}

export interface ReportInput {
  readonly quick: boolean;
  readonly plan: {
    readonly rounds: number;
    readonly seconds: number;
    readonly warmupSeconds: number;
    readonly connections: number;
    readonly watchEvents: number;
    readonly watchRounds: number;
    readonly idleSettleMs: number;
  };
  readonly loadGenerator: string;
  readonly upstreamWorkers: number;
  readonly bodies: { readonly objectBytes: number; readonly listBytes: number; readonly createBytes: number; readonly watchEvents: number };
  readonly targets: readonly TargetInfo[];
  readonly skipped: readonly { readonly target: string; readonly reason: string }[];
  readonly runs: readonly Run[];
  readonly watches: readonly WatchRun[];
  readonly peerscopeOutcomes: Record<string, number>;
  /** GET straight to the upstream with 2 load threads and 64 connections (full mode only). */
  readonly upstreamCapacity: { readonly rps: number; readonly upstreamCpuCores: number; readonly loadCpuCores: number } | undefined;
  readonly seconds: number;
}

export interface Check {
  readonly name: string;
  readonly op: '≥' | '≤';
  readonly target: number;
  readonly unit: string;
  /** The median (ratios: of the per-round ratios); undefined when a target needed for it is missing. */
  readonly value: number | undefined;
  readonly spread?: Spread;
  readonly ok: boolean | undefined;
  readonly skipped?: string;
}

export interface Report extends ReportInput {
  readonly summary: Record<string, Record<string, Record<string, Spread | undefined>>>;
  readonly ratios: Record<string, Spread | undefined>;
  readonly checks: readonly Check[];
}
