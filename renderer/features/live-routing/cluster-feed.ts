// The cluster source's events as the page keeps them (event-feed.ts): what the apiservers answered,
// from their audit logs, when the core follows them. One feed for the app's life, as the port's.
import { createContext } from 'react';
import type { ClusterEvent, CoreClient } from '../../../proxy-core/contract/index.js';
import { EventFeed, type FeedSource } from './event-feed.js';

const clusterSource: FeedSource<ClusterEvent> = {
  batchOf: (event) => (event.type === 'cluster' ? event : undefined),
  load: async (client, limit) => (await client.getClusterEvents({ limit })).events,
};

export class ClusterFeed extends EventFeed<ClusterEvent> {
  constructor(client: CoreClient, now: () => number = Date.now) {
    super(client, clusterSource, now);
  }
}

/** The app's cluster feed; the Live routing screen makes its own when rendered alone (tests). */
export const ClusterFeedContext = createContext<ClusterFeed | null>(null);
