// A port feed and a cluster feed of the screen's own kind, fed from the recording instead of the live
// stream: the batches a replay or a window's preview pushes, the screen's table, chart and tallies
// draw as they draw the core's. The feeds bucket their rate chart by the batch's recorded time.
import type { CoreEvent } from '../../../proxy-core/contract/index.js';
import { ClusterFeed } from './cluster-feed.js';
import type { FeedClient } from './event-feed.js';
import { RoutingFeed } from './routing-feed.js';

export class RecordedFeeds {
  readonly port: RoutingFeed;
  readonly cluster: ClusterFeed;
  private readonly pushed = new Set<(event: CoreEvent) => void>();
  private readonly stops: (() => void)[];
  /** The recorded time of the batch being pushed (epoch ms). */
  private clock: number;

  constructor(start: number) {
    this.clock = start;
    // Nothing to read first: every event comes pushed, as the core's own pushes do.
    const bus: FeedClient = {
      subscribe: (listener) => {
        this.pushed.add(listener);
        return () => this.pushed.delete(listener);
      },
      getEvents: async () => ({ events: [], lastSeq: 0 }),
      getClusterEvents: async () => ({ events: [], lastSeq: 0 }),
    };
    this.port = new RoutingFeed(bus, () => this.clock);
    this.cluster = new ClusterFeed(bus, () => this.clock);
    this.stops = [this.port.start(), this.cluster.start()];
  }

  /** One batch, recorded at `at`, to both feeds (each takes its own kind). */
  push(at: number, event: CoreEvent): void {
    this.clock = at;
    for (const listener of this.pushed) listener(event);
  }

  /** The screen is told at once what both feeds hold: a replay that stops moving shows every event up to its clock. */
  flush(): void {
    this.port.flush();
    this.cluster.flush();
  }

  close(): void {
    for (const stop of this.stops) stop();
  }
}
