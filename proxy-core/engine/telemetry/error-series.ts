// Failed requests per apiserver over time, in fixed buckets: the error series of the Server health
// screen. A request counts against the server it was sent to when that server failed it: the connection
// was refused or reset, it stalled or closed mid-answer, or it answered 5xx itself. Bounded: an hour of
// 5-second buckets per server.
import { RingBuffer } from './ring-buffer.js';

export interface ErrorBucket {
  /** Start of the bucket, epoch ms. */
  at: number;
  count: number;
}

export const ERROR_BUCKET_MS = 5_000;
const BUCKETS_KEPT = 720;

export class ErrorSeries {
  private readonly series = new Map<string, RingBuffer<ErrorBucket>>();

  constructor(
    private readonly bucketMs = ERROR_BUCKET_MS,
    private readonly kept = BUCKETS_KEPT,
  ) {}

  add(server: string, at: number): void {
    const start = at - (at % this.bucketMs);
    let ring = this.series.get(server);
    if (!ring) this.series.set(server, (ring = new RingBuffer(this.kept)));
    const last = ring.last();
    if (last && last.at === start) last.count++;
    // A late event (its request started in an older bucket) joins the newest one: order is kept.
    else if (last && last.at > start) last.count++;
    else ring.push({ at: start, count: 1 });
  }

  /** Buckets with at least one error, oldest first (copies). */
  of(server: string): ErrorBucket[] {
    return (this.series.get(server)?.recent() ?? []).map((b) => ({ at: b.at, count: b.count }));
  }
}
