// The routing events of the most recent requests, held column by column.
//
// Why not a ring of event objects: 10,000 events outlive every young-generation collection, so
// each request's event and its strings (path, user agent, the GVR sliced from the path) were copied
// into the old generation, to die there a second later. Counted under the bench's GET load (per
// 10,000 requests, 4 runs each): with event objects 26–45 ms of scavenges and 0.2–0.8 full
// mark-compacts (2–11 ms pauses each, the port's p99); with these columns 15–22 ms and none. Numbers
// live in typed arrays and strings are interned, so the strings of a request that repeats what came
// before are young garbage, and no object per event is kept. Events are built again when read.
import type { RouteOutcome, RoutingEvent } from '../../contract/events.js';

/** Distinct strings remembered for interning before the table starts afresh (it only deduplicates). */
const INTERN_LIMIT = 4_096;

class Interner {
  private readonly table = new Map<string, string>();

  intern(s: string): string {
    const known = this.table.get(s);
    if (known !== undefined) return known;
    if (this.table.size >= INTERN_LIMIT) this.table.clear();
    this.table.set(s, s);
    return s;
  }
}

export class EventRing {
  private readonly seq: Float64Array;
  private readonly at: Float64Array;
  private readonly latencyMs: Float64Array;
  private readonly bytesIn: Float64Array;
  private readonly bytesOut: Float64Array;
  private readonly status: Int32Array;
  private readonly userAgent: string[];
  private readonly method: string[];
  private readonly verb: string[];
  private readonly path: string[];
  private readonly group: string[];
  private readonly version: string[];
  private readonly resource: string[];
  private readonly subresource: string[];
  private readonly namespace: string[];
  private readonly handling: (string | null)[];
  private readonly answeredBy: (string | null)[];
  private readonly outcome: RouteOutcome[];
  private readonly error: (string | undefined)[];
  /** Low-cardinality text (GVR, verbs, user agents) and paths, kept apart so a flood of distinct paths does not flush the labels. */
  private readonly labels = new Interner();
  private readonly paths = new Interner();
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`event ring capacity must be a positive integer, got ${capacity}`);
    this.seq = new Float64Array(capacity);
    this.at = new Float64Array(capacity);
    this.latencyMs = new Float64Array(capacity);
    this.bytesIn = new Float64Array(capacity);
    this.bytesOut = new Float64Array(capacity);
    this.status = new Int32Array(capacity);
    const strings = (): string[] => new Array<string>(capacity).fill('');
    this.userAgent = strings();
    this.method = strings();
    this.verb = strings();
    this.path = strings();
    this.group = strings();
    this.version = strings();
    this.resource = strings();
    this.subresource = strings();
    this.namespace = strings();
    this.handling = new Array<string | null>(capacity).fill(null);
    this.answeredBy = new Array<string | null>(capacity).fill(null);
    this.outcome = new Array<RouteOutcome>(capacity).fill('local');
    this.error = new Array<string | undefined>(capacity).fill(undefined);
  }

  get size(): number {
    return this.count;
  }

  push(e: RoutingEvent): void {
    const i = this.next;
    const l = this.labels;
    this.seq[i] = e.seq;
    this.at[i] = e.at;
    this.latencyMs[i] = e.latencyMs;
    this.bytesIn[i] = e.bytesIn;
    this.bytesOut[i] = e.bytesOut;
    this.status[i] = e.status;
    // The method (Node hands out one string per known method), the servers (names from the
    // configuration) and the outcome are the same strings request after request: kept as they are.
    // The rest is cut from each request's own text, a new string every time: interned.
    this.userAgent[i] = l.intern(e.userAgent);
    this.method[i] = e.method;
    this.verb[i] = l.intern(e.verb);
    this.path[i] = this.paths.intern(e.path);
    this.group[i] = l.intern(e.group);
    this.version[i] = l.intern(e.version);
    this.resource[i] = l.intern(e.resource);
    this.subresource[i] = l.intern(e.subresource);
    this.namespace[i] = l.intern(e.namespace);
    this.handling[i] = e.handling;
    this.answeredBy[i] = e.answeredBy;
    this.outcome[i] = e.outcome;
    this.error[i] = e.error;
    this.next = (i + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  /** The newest `n` events (all by default), oldest first, as new objects. */
  recent(n = this.count): RoutingEvent[] {
    const take = Math.max(0, Math.min(n, this.count));
    const out = new Array<RoutingEvent>(take);
    let i = (this.next - take + this.capacity) % this.capacity;
    for (let k = 0; k < take; k++) {
      out[k] = this.eventAt(i);
      i = (i + 1) % this.capacity;
    }
    return out;
  }

  /** The event in slot `i`, as record() built it (an error, when there was one, comes last). */
  private eventAt(i: number): RoutingEvent {
    const event: RoutingEvent = {
      at: this.at[i] as number,
      userAgent: this.userAgent[i] as string,
      method: this.method[i] as string,
      verb: this.verb[i] as string,
      path: this.path[i] as string,
      group: this.group[i] as string,
      version: this.version[i] as string,
      resource: this.resource[i] as string,
      subresource: this.subresource[i] as string,
      namespace: this.namespace[i] as string,
      handling: this.handling[i] as string | null,
      answeredBy: this.answeredBy[i] as string | null,
      outcome: this.outcome[i] as RouteOutcome,
      status: this.status[i] as number,
      latencyMs: this.latencyMs[i] as number,
      bytesIn: this.bytesIn[i] as number,
      bytesOut: this.bytesOut[i] as number,
      seq: this.seq[i] as number,
    };
    const error = this.error[i];
    if (error !== undefined) event.error = error;
    return event;
  }
}
