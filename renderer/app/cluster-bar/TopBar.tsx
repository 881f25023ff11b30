// The cluster bar at the top of every screen: the local port, the discovery mode, what is shown (live,
// a snapshot, a recorded moment or window, a recording opened from a file), the time control, then the
// servers, the request totals and the controls. A recording opened from a file has no port of its own.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { queryKeys, useCoreClient } from '../../shared/client-context.js';
import { ErrorState } from '../../shared/ui/states.js';
import { useMoment, useOffline, useTimeWindow } from '../../shared/view-mode.js';
import { useConnection, type ConnectionSource } from './connection.js';
import { AuditRead } from './AuditRead.js';
import { Controls } from './Controls.js';
import { SourceBadges } from './SourceBadge.js';
import { TimeControl } from './TimeControl.js';
import { ServerStrip } from './ServerStrip.js';
import { Totals } from './Totals.js';

export function TopBar({ connection }: { connection: ConnectionSource | undefined }) {
  const client = useCoreClient();
  const queryClient = useQueryClient();
  const offline = useOffline();
  const moment = useMoment();
  const window = useTimeWindow();
  const overview = useQuery({
    queryKey: queryKeys.overview,
    queryFn: () => client.getOverview(),
    // A snapshot, a moment and a recording opened from a file never change; a session switch refetches.
    refetchInterval: (query) => (offline || moment || query.state.data?.recording ? false : 5_000),
  });
  // A moment's view says at once whose recording it is, before its overview is read.
  const recording = overview.data?.recording ?? moment?.recording;
  const state = useConnection(connection);
  // Events pushed while the stream was down are lost: after a reconnect, read everything again.
  const previous = useRef(state);
  useEffect(() => {
    if (state === 'live' && previous.current === 'reconnecting') void queryClient.invalidateQueries();
    previous.current = state;
  }, [state, queryClient]);
  return (
    <header className="topbar">
      <div className="brand">
        <span className="logo" aria-hidden="true" />
        <span className="brand-name">Peerscope</span>
        {overview.data?.listen && (
          <code className="port" title="The local port: point kubectl here">
            {overview.data.listen.host}:{overview.data.listen.port}
          </code>
        )}
        {overview.data && (
          <span
            className={`mode-chip${overview.data.discoveryMode === 'nopeer' ? ' mode-nopeer' : ''}`}
            title={
              recording
                ? "Discovery on the recording's port as recorded: a recording is read-only"
                : moment
                  ? 'Discovery on the local port as recorded then'
                  : 'Discovery on the local port (change it on the Discovery screen)'
            }
          >
            discovery: {overview.data.discoveryMode}
          </span>
        )}
        {overview.data?.faithful && (
          <span
            className="mode-chip mode-faithful"
            title="--faithful: the port does exactly what the servers' own Mixed Version Proxy does. OpenAPI and legacy discovery (/apis without the aggregated Accept, /apis/GROUP, /openapi/v3) are the handling server's own, not one cluster's"
          >
            faithful: the servers' own MVP
          </span>
        )}
        <SourceBadges
          source={{ offline: offline !== null, moment: moment !== null, window: window !== null, recording, connection: state }}
        />
      </div>
      <TimeControl />
      {overview.isError ? (
        <ErrorState error={overview.error} retry={() => void overview.refetch()} />
      ) : overview.data ? (
        <>
          <ServerStrip overview={overview.data} />
          {/* A moment's counts are not read back yet: none shown rather than zeros. A recording's are its whole span's. */}
          {!moment && <Totals overview={overview.data} over={recording ? 'the whole recording' : undefined} />}
          <AuditRead overview={overview.data} />
          <Controls overview={overview.data} />
        </>
      ) : null}
    </header>
  );
}
