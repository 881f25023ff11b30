// Who got false 404s over the recorded window: per client (user agent and user), the server that
// answered 404 and the GVR it lacked while a peer served it — read from the recording's rollups
// (getFalse404sForWindow), the window's counterpart of Live routing's running tally.
import { useQuery } from '@tanstack/react-query';
import { useCoreClient } from '../../shared/client-context.js';
import { False404Table } from '../../shared/ui/False404Table.js';
import { formatClock } from '../../shared/ui/format.js';
import { ErrorState, Loading } from '../../shared/ui/states.js';
import type { TimeWindow } from '../../shared/view-mode.js';

/** Rows shown; the rest are summed in one line. */
const MAX_SHOWN = 20;

/**
 * A window that ends within the last half minute of the session: the servers' audit logs are read a
 * few seconds behind, so what the recording holds for it still grows and is read again.
 */
export function reachesNow(window: { readonly to: number }, now = Date.now()): boolean {
  return window.to > now - 30_000;
}

export function WindowFalse404s({ window }: { window: TimeWindow }) {
  const client = useCoreClient();
  const tally = useQuery({
    queryKey: ['window-false-404s', window.from, window.to],
    queryFn: () => client.getFalse404sForWindow(window),
    refetchInterval: reachesNow(window) ? 5_000 : false,
  });
  const span = `${formatClock(window.from)}–${formatClock(window.to - 1)}`;
  const rows = tally.data?.rows ?? [];
  const total = rows.reduce((n, r) => n + r.count, 0);
  return (
    <section className="card false-404s" aria-labelledby="window-false-404s-title">
      <h3 id="window-false-404s-title">
        False 404s by client <span className="muted small">{span}, recorded</span>
      </h3>
      {tally.isPending ? (
        <Loading what="the window's false 404s" />
      ) : tally.isError ? (
        <ErrorState error={tally.error} retry={() => void tally.refetch()} />
      ) : total === 0 ? (
        <p className="muted small">
          None recorded in the window: no server&apos;s audit log or webhook had a 404 for a GVR a peer served (a session without the
          cluster source records none).
        </p>
      ) : (
        <False404Table
          label="False 404s by client in the window"
          caption={
            <>
              {total.toLocaleString()} false {total === 1 ? '404' : '404s'} from {rows.length} client, server and API{' '}
              {rows.length === 1 ? 'combination' : 'combinations'}
            </>
          }
          rows={rows}
          shown={MAX_SHOWN}
          whenHeading="Minutes"
          when={(r) => `${formatClock(r.first).slice(0, 5)}${r.last > r.first ? `–${formatClock(r.last).slice(0, 5)}` : ''}`}
          rest="other combinations"
        />
      )}
    </section>
  );
}
