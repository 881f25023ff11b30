// What the traffic generator's reflectors saw of their watches, to prove that resuming loses
// nothing: per reflector, segments that each start from a list's resourceVersion and run through
// every watch resumed from the last resourceVersion held (an event's or a BOOKMARK's), until a
// 410 forces a new list. Within a segment, every change the store made to the watched objects must
// have arrived — checked against the store's own history by lostWatchEvents().

export interface WatchCounts {
  /** Watch requests answered 200: a stream began. */
  opened: number;
  /** Streams the server ended cleanly (drain, timeoutSeconds, the port shutting down). */
  endedCleanly: number;
  /** Streams cut in the middle, or ended by an ERROR event other than 410. */
  errored: number;
  /** Watch requests that got no stream: another status, or no answer. */
  refused: number;
  /** Streams opened from the resourceVersion the previous stream reached (not from a new list). */
  resumed: number;
  /** 410 Gone: the reflector listed again and started a new segment. */
  relisted: number;
  /** Streams still open when the generator stopped (cut by the client, not counted as errors). */
  stoppedByClient: number;
}

export interface WatchSegment {
  /** "group/version/resource" of the reflector. */
  readonly gvr: string;
  /** The namespace its watches are filtered to; "" for a cluster-scoped resource (all objects). */
  readonly namespace: string;
  /** resourceVersion of the list the segment started from. */
  readonly fromRv: number;
  /** resourceVersions of the ADDED / MODIFIED / DELETED events received, in order of arrival. */
  readonly rvs: number[];
  /** The newest resourceVersion the reflector held: its last event's or BOOKMARK's. */
  lastRv: number;
  /** Streams opened in this segment (the first, then every resume). */
  streams: number;
}

export function emptyWatchCounts(): WatchCounts {
  return { opened: 0, endedCleanly: 0, errored: 0, refused: 0, resumed: 0, relisted: 0, stoppedByClient: 0 };
}

/** One change in the store's history, as the soak records it (ObjectStore events carry these). */
export interface StoreChange {
  /** "group/resource". */
  readonly groupResource: string;
  readonly namespace: string;
  readonly resourceVersion: number;
}

export interface WatchLossReport {
  /** Store changes inside a segment (after its list, up to the last resourceVersion held) that never arrived. */
  readonly lost: { gvr: string; namespace: string; resourceVersion: number }[];
  /** Events that arrived twice within a segment (a resume must start after the last one held). */
  readonly duplicated: number;
  /** Events that arrived with a resourceVersion lower than one before them. */
  readonly outOfOrder: number;
  /** Store changes the segments covered, all told. */
  readonly covered: number;
}

/** Compares what each segment received with what the store did to the objects it watched. */
export function lostWatchEvents(segments: readonly WatchSegment[], changes: readonly StoreChange[]): WatchLossReport {
  const lost: WatchLossReport['lost'] = [];
  let duplicated = 0;
  let outOfOrder = 0;
  let covered = 0;
  for (const seg of segments) {
    const [group = '', , resource = ''] = seg.gvr.split('/');
    const groupResource = `${group}/${resource}`;
    const seen = new Set(seg.rvs);
    duplicated += seg.rvs.length - seen.size;
    for (let i = 1; i < seg.rvs.length; i++) if ((seg.rvs[i] as number) < (seg.rvs[i - 1] as number)) outOfOrder++;
    for (const c of changes) {
      if (c.groupResource !== groupResource || c.resourceVersion <= seg.fromRv || c.resourceVersion > seg.lastRv) continue;
      if (seg.namespace !== '' && c.namespace !== seg.namespace) continue;
      covered++;
      if (!seen.has(c.resourceVersion)) lost.push({ gvr: seg.gvr, namespace: seg.namespace, resourceVersion: c.resourceVersion });
    }
  }
  return { lost, duplicated, outOfOrder, covered };
}
