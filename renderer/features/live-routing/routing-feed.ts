// The port's routing events as the page keeps them (event-feed.ts): one feed for the app's life.
import { createContext } from 'react';
import type { RoutingEvent } from '../../../proxy-core/contract/index.js';
import { EventFeed, type FeedClient, type FeedSource, type FeedState } from './event-feed.js';

export { addToSeries, MAX_ROWS, NOTIFY_MS, RATE_SECONDS, type RatePoint } from './event-feed.js';

const portSource: FeedSource<RoutingEvent> = {
  batchOf: (event) => (event.type === 'routing' ? event : undefined),
  load: async (client, limit) => (await client.getEvents({ limit })).events,
};

export class RoutingFeed extends EventFeed<RoutingEvent> {
  constructor(client: FeedClient, now: () => number = Date.now) {
    super(client, portSource, now);
  }
}

export type RoutingFeedState = FeedState<RoutingEvent>;

/** The app's feed; the Live routing screen makes its own when rendered alone (tests). */
export const RoutingFeedContext = createContext<RoutingFeed | null>(null);
