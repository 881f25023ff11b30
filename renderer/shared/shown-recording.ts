// Whether the screens show a recording opened from a file (the overview names it, at its end and at
// any moment or window of it): a screen then offers what the file answers and says plainly what it
// does not hold, rather than ask its read-only session for the live cluster's.
import { useQuery } from '@tanstack/react-query';
import type { DiscoveryMode, Overview, ShownRecording } from '../../proxy-core/contract/index.js';
import { queryKeys, useCoreClient } from './client-context.js';
import { useView } from './view-mode.js';

export interface ShownSession {
  /** The recording opened from a file; null for the live session (a moment of its own recording included). */
  readonly recording: ShownRecording | null;
  readonly discoveryMode: DiscoveryMode;
}

const select = (o: Overview): ShownSession => ({ recording: o.recording ?? null, discoveryMode: o.discoveryMode });

/** Undefined until the overview is read: a screen waits for it rather than ask a recording what it cannot answer. */
export function useShownSession(): ShownSession | undefined {
  const client = useCoreClient();
  return useQuery({ queryKey: queryKeys.overview, queryFn: () => client.getOverview(), select }).data;
}

/**
 * The session behind a snapshot shown offline (whose own client knows nothing of it): leaving the
 * snapshot returns there — to the recording opened from a file, when one is, not to live.
 */
export function useSessionBehind(): ShownSession | undefined {
  const view = useView();
  const screens = useCoreClient();
  const live = view?.live ?? screens;
  return useQuery({ queryKey: queryKeys.overview, queryFn: () => live.getOverview(), select }, view?.liveQueries).data;
}
