// Live routing over a window of the recording chosen in the top bar, before Play: the window's first
// page of recorded events (getRecordedEvents, one bounded request however long the window), pushed
// into a port feed and a cluster feed of the screen's own kind as a replay pushes them, so the table,
// chart and source switch draw what the recording holds there — never the live stream.
import { useEffect, useState, useSyncExternalStore } from 'react';
import type { CoreClient } from '../../../proxy-core/contract/index.js';
import type { ClusterFeed } from './cluster-feed.js';
import { RecordedFeeds } from './recorded-feeds.js';
import { merged, recordedBatches, type ReplayWindow } from './replay.js';
import { MAX_ROWS, type RoutingFeed } from './routing-feed.js';

export interface PreviewState {
  readonly status: 'loading' | 'ready' | 'error';
  readonly error?: string;
  /** Events shown: the window's first, oldest first, at most the page's limit. */
  readonly shown: number;
  /** Whether they are every event the window holds. */
  readonly whole: boolean;
  /** Whether any came from the cluster source (the screen then offers its sources). */
  readonly cluster: boolean;
  /** The recorded time of the last event shown (epoch ms); the window's start while none is. */
  readonly through: number;
}

export class WindowPreview {
  readonly port: RoutingFeed;
  readonly cluster: ClusterFeed;
  private state: PreviewState;
  private readonly listeners = new Set<() => void>();
  private readonly feeds: RecordedFeeds;
  private closed = false;

  constructor(
    private readonly client: Pick<CoreClient, 'getRecordedEvents'>,
    readonly window: ReplayWindow,
    private readonly limit = MAX_ROWS,
  ) {
    this.state = { status: 'loading', shown: 0, whole: false, cluster: false, through: window.from };
    this.feeds = new RecordedFeeds(window.from);
    this.port = this.feeds.port;
    this.cluster = this.feeds.cluster;
  }

  getState = (): PreviewState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Reads the window's first page and shows it (again, after an error). */
  async load(): Promise<void> {
    this.set({ status: 'loading', error: undefined });
    try {
      const { from, to } = this.window;
      const page = await this.client.getRecordedEvents({ from, to, limit: this.limit });
      if (this.closed) return;
      const events = merged(page);
      for (const batch of recordedBatches(events, { port: 0, cluster: 0 })) this.feeds.push(batch.at, batch.event);
      this.set({
        status: 'ready',
        shown: events.length,
        whole: page.next === null,
        cluster: page.cluster.length > 0,
        through: events.at(-1)?.event.at ?? from,
      });
    } catch (err) {
      if (!this.closed) this.set({ status: 'error', error: (err as Error).message });
    }
  }

  close(): void {
    this.closed = true;
    this.feeds.close();
    this.listeners.clear();
  }

  private set(patch: Partial<PreviewState>): void {
    this.state = { ...this.state, ...patch };
    for (const l of this.listeners) l();
  }
}

const noSubscription = () => () => undefined;
const noState = () => null;

/** The preview of the top bar's `window` while no replay is on (null otherwise), read once per window. */
export function useWindowPreview(
  client: Pick<CoreClient, 'getRecordedEvents'>,
  window: ReplayWindow | null,
  replaying: boolean,
): { readonly preview: WindowPreview | null; readonly state: PreviewState | null } {
  const [preview, setPreview] = useState<WindowPreview | null>(null);
  const from = window?.from;
  const to = window?.to;
  useEffect(() => {
    if (from === undefined || to === undefined || replaying) return setPreview(null);
    const next = new WindowPreview(client, { from, to });
    setPreview(next);
    void next.load();
    return () => next.close();
  }, [client, from, to, replaying]);
  const state = useSyncExternalStore(preview?.subscribe ?? noSubscription, preview?.getState ?? noState);
  return { preview, state };
}
