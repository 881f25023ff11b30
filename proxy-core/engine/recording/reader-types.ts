// The shapes a recording is read back in (reader.ts): a window, a series (one kind of request), its
// counts, a timeline change, a raw event, and the recording's own facts.
import type { ChangeKind, EventSource } from './schema.js';

/** Epoch ms; an open end reads to the recording's edge. `to` is exclusive. */
export interface Window {
  readonly from?: number;
  readonly to?: number;
}

export interface Series {
  readonly source: EventSource;
  /** The handling server (port), the server that answered (cluster); null when none was. */
  readonly server: string | null;
  /** The port's events: the server that produced the response; null when the port answered itself. */
  readonly answered: string | null;
  readonly client: string;
  readonly user: string | null;
  readonly gvr: string;
  readonly verb: string;
  readonly outcome: string;
  readonly code: number | null;
}

export interface SeriesCount extends Series {
  /** Start of the minute (epoch ms), or of the window for totals. */
  readonly at: number;
  readonly count: number;
  /** Summed latency in ms (mean = latency / count). */
  readonly latency: number;
}

export interface Change {
  readonly at: number;
  readonly kind: ChangeKind;
  readonly subject: string;
  readonly value: string;
}

export interface RecordedEvent extends Series {
  readonly at: number;
  readonly namespace: string;
  readonly latencyMs: number;
}

export interface RecordingInfo {
  readonly file: string;
  readonly host: string;
  readonly peerscopeVersion: string;
  /** Epoch ms the session started, and of the last thing it recorded. */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly events: number;
}
