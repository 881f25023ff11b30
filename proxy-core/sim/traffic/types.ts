// What the traffic generator is given and what it reports.
import type { ReleaseCatalog } from '../../engine/releases/index.js';
import type { WatchCounts, WatchSegment } from './watch-log.js';

export type TrafficKind = 'list' | 'watch' | 'get' | 'create' | 'delete' | 'ns-sweep';

export interface TrafficResult {
  readonly at: number;
  readonly kind: TrafficKind;
  readonly method: string;
  readonly path: string;
  /** "group/version/resource" ("" group for the core API). */
  readonly gvr: string;
  /** 0 when no HTTP answer came (connection refused or cut). */
  readonly status: number;
  /** Until the whole answer; for a watch, until its response headers. */
  readonly ms: number;
  readonly target: string;
  /** The user agent it was sent with: which of TRAFFIC_CLIENTS sent it. */
  readonly userAgent: string;
  /** The server that answered: X-Peerscope-Route's answering server, else X-Simulated-Apiserver. */
  readonly answeredBy?: string;
  readonly error?: string;
}

export interface AcknowledgedWrite {
  readonly op: 'create' | 'delete';
  readonly gvr: string;
  /** "" for a cluster-scoped object. */
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
}

export interface TrafficSummary {
  readonly total: number;
  readonly byStatus: Record<string, number>;
  readonly byKind: Record<string, number>;
  /** Every 404 for a collection (list, watch, sweep) or a create — never a get or delete of one object — with its GVR. */
  readonly notFound: { gvr: string; path: string; target: string; at: number; kind: TrafficKind }[];
  readonly writes: AcknowledgedWrite[];
  /** Names whose create or delete got no definite answer (no response, or a 5xx): the write may or may not have happened. */
  readonly uncertain: string[];
  readonly watchEvents: number;
  readonly watchReconnects: number;
  /** How the reflectors' watches went: opened, ended cleanly, errored, refused, resumed, relisted. */
  readonly watches: WatchCounts;
  /** Per reflector, the list → watch → resume … segments with the resourceVersions received (see watch-log.ts). */
  readonly watchSegments: WatchSegment[];
}

export interface TrafficOptions {
  readonly targets: readonly string[];
  /** CA (PEM) that verifies https:// targets. */
  readonly ca?: string;
  readonly token?: string;
  /** Requests per second, all kinds together; 0 sends nothing until setRate(). */
  readonly rps: number;
  /** Every release in play: the generator asks for the union of their GVRs. */
  readonly releases: readonly ReleaseCatalog[];
  readonly namespace?: string;
  /** Seeds the choice of requests (names stay unique across runs). */
  readonly seed?: number;
  /** Stops the generator like stop(). */
  readonly signal?: AbortSignal;
  /** Controller reflectors (list, then watch) kept running; default 3. */
  readonly watches?: number;
  /** Short requests in flight at once; default 32. */
  readonly maxInFlight?: number;
  /** How long stop() lets in-flight requests finish before cutting them; default 2000 ms. */
  readonly stopGraceMs?: number;
  readonly onResult?: (r: TrafficResult) => void;
}

export interface TrafficHandle {
  setRate(rps: number): void;
  summary(): TrafficSummary;
  /** No new requests; watches end at once, other requests get the grace; then the final summary. */
  stop(): Promise<TrafficSummary>;
}
