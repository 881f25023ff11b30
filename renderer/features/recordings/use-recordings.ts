// The recordings folder as the screens read it: one query on the live core (never a snapshot's or a
// moment's client), fetched again when the app's session changes (a recording opened or left), and
// the actions that answer the folder anew.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import type { CoreClient, Recordings } from '../../../proxy-core/contract/index.js';
import { useCoreClient } from '../../shared/client-context.js';
import { useView } from '../../shared/view-mode.js';

export const recordingsKey = ['recordings'] as const;

/** What each action's failure is titled. */
export const FAILED: Record<string, string> = {
  import: 'Could not open the file.',
  open: 'Could not open the recording.',
  delete: 'Could not delete the recording.',
  retention: 'Could not save the cap.',
  leave: 'Could not go back to live.',
};

/** The live core, whichever view the screens show. */
export function useLiveClient(): CoreClient {
  const shown = useCoreClient();
  return useView()?.live ?? shown;
}

export function useRecordings() {
  const client = useLiveClient();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: recordingsKey, queryFn: () => client.getRecordings(), refetchInterval: 10_000 });
  const { refetch } = query;
  useEffect(
    () =>
      client.subscribe((event) => {
        if (event.type === 'session') void refetch();
      }),
    [client, refetch],
  );
  const [busy, setBusy] = useState<string | null>(null);
  const [failed, setFailed] = useState<{ readonly what: string; readonly error: unknown } | null>(null);
  /** Runs an action that answers the folder anew; its failure is kept for the screen to show. */
  const act = useCallback(
    async (what: string, action: () => Promise<Recordings>): Promise<boolean> => {
      setBusy(what);
      setFailed(null);
      try {
        queryClient.setQueryData(recordingsKey, await action());
        return true;
      } catch (error) {
        setFailed({ what, error });
        return false;
      } finally {
        setBusy(null);
      }
    },
    [queryClient],
  );
  return { query, client, act, busy, failed, clearFailed: () => setFailed(null) };
}

/** A size as people read it: "1.5 GiB", "320 MiB", "12 KiB", "800 B". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A span's length: "45 s", "12 min", "3 h 05 min". */
export function formatSpan(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`;
}
