// What a ServerSet is given (its periods and timeouts) and the events it tells its listeners, beside
// the connect timeout of its probes, which follows from the probe period.
import type { MembershipChange } from './membership.js';

export interface ServerSetOptions {
  readonly probeIntervalMs?: number;
  readonly discoveryIntervalMs?: number;
  readonly timeoutMs?: number;
  /** Health samples kept per server. */
  readonly historySize?: number;
  /** How long a server that left the cluster stays listed as gone (default 10 minutes). */
  readonly goneRetentionMs?: number;
  /** Period of the read of each real server's /metrics (its own peer-proxy counters, request counts, deprecated APIs; default 15 s; 0 = never). */
  readonly ownMetricsIntervalMs?: number;
  /**
   * Watch CRDs and APIServices through one ready server and re-read discovery when they change
   * (servers/api-watch.ts; default true). Off: only the periodic re-read.
   */
  readonly watchApis?: boolean;
}

export interface ServerSetEvents {
  /** Health or version of a server changed. */
  health: [name: string];
  /** A server's discovery content changed (or became stale / readable again). */
  discovery: [name: string];
  /** A server joined, left (gone), came back, was removed after being gone, or got another address. */
  membership: [name: string, change: MembershipChange];
  /** A line for the host's log (e.g. the CRD watch was refused and discovery is re-read on the period only). */
  notice: [line: string];
}

/**
 * A probe that cannot open a connection within three quarters of a probe interval finds the server
 * unreachable, so a silent link is told within two intervals of going silent (the next probe starts
 * within one). At least 1.5 s: a lost SYN is sent again after 1 s, and one lost packet is no outage.
 */
export function probeConnectTimeout(probeIntervalMs: number, timeoutMs: number): number {
  return Math.min(timeoutMs, Math.max(1_500, Math.round(probeIntervalMs * 0.75)));
}
