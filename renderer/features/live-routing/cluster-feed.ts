// The cluster source's events as the page keeps them (event-feed.ts): what the apiservers answered,
// from their audit logs, when the core follows them. One feed for the app's life, as the port's.
// Beside the bounded rows it tallies every false 404 it takes in, per client, server and GVR: the
// operator's question "who is getting false 404s?" outlives the rows that scroll away.
import { createContext } from 'react';
import type { ClusterEvent } from '../../../proxy-core/contract/index.js';
import { EventFeed, type FeedClient, type FeedSource, type OutcomeCounts } from './event-feed.js';

const clusterSource: FeedSource<ClusterEvent> = {
  batchOf: (event) => (event.type === 'cluster' ? event : undefined),
  load: async (client, limit) => (await client.getClusterEvents({ limit })).events,
};

/** The false 404s one client got from one server for one GVR. */
export interface False404Row {
  readonly userAgent: string;
  readonly user: string;
  readonly server: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly count: number;
  /** Epoch ms of the latest. */
  readonly last: number;
}

/** Client, server and GVR combinations the tally names; more are counted in `unattributed`. */
export const MAX_TALLY_ROWS = 2_000;

export interface False404Tally {
  /** Most first. */
  readonly rows: readonly False404Row[];
  /** False 404s in no row: trimmed from the core's batches (a burst), or past MAX_TALLY_ROWS combinations. */
  readonly unattributed: number;
  /** Epoch ms the tally began (the feed's start, or the session's). */
  readonly since: number;
}

export class ClusterFeed extends EventFeed<ClusterEvent> {
  private readonly tally = new Map<string, False404Row>();
  private unattributed = 0;
  private since: number;
  private snapshot: False404Tally;
  /** The snapshot is sorted when read, not per batch: screens read it at most a few times a second. */
  private dirty = false;

  constructor(
    client: FeedClient,
    private readonly clock: () => number = Date.now,
  ) {
    super(client, clusterSource, clock);
    this.since = clock();
    this.snapshot = { rows: [], unattributed: 0, since: this.since };
  }

  /** A stable object until a false 404 arrives (for useSyncExternalStore with the feed's subscribe). */
  getFalse404s = (): False404Tally => {
    if (this.dirty) {
      this.dirty = false;
      const rows = [...this.tally.values()].sort((a, b) => b.count - a.count || b.last - a.last);
      this.snapshot = { rows, unattributed: this.unattributed, since: this.since };
    }
    return this.snapshot;
  };

  protected override seen(
    events: readonly ClusterEvent[],
    batch: { readonly counts: OutcomeCounts; readonly events: readonly ClusterEvent[] } | undefined,
  ): void {
    let added = 0;
    for (const e of events) {
      if (e.outcome !== 'false-404') continue;
      added++;
      const key = `${e.userAgent}\u0000${e.user}\u0000${e.server}\u0000${e.group}/${e.version}/${e.resource}`;
      const row = this.tally.get(key);
      // Bounded: past MAX_TALLY_ROWS combinations, a new one is counted without its name.
      if (!row && this.tally.size >= MAX_TALLY_ROWS) {
        this.unattributed++;
        continue;
      }
      this.tally.set(
        key,
        row
          ? { ...row, count: row.count + 1, last: Math.max(row.last, e.at) }
          : {
              userAgent: e.userAgent,
              user: e.user,
              server: e.server,
              group: e.group,
              version: e.version,
              resource: e.resource,
              count: 1,
              last: e.at,
            },
      );
    }
    // What the core counted in the window beyond the events it sent (those it sent are tallied, now or by the load).
    const sent = batch ? batch.events.filter((e) => e.outcome === 'false-404').length : 0;
    const trimmed = batch ? Math.max(0, (batch.counts['false-404'] ?? 0) - sent) : 0;
    this.unattributed += trimmed;
    if (added > 0 || trimmed > 0) this.publish();
  }

  protected override restart(): void {
    this.tally.clear();
    this.unattributed = 0;
    this.since = this.clock();
    this.publish();
  }

  private publish(): void {
    this.dirty = true;
  }
}

/** The app's cluster feed; the Live routing screen makes its own when rendered alone (tests). */
export const ClusterFeedContext = createContext<ClusterFeed | null>(null);
