// Who is getting false 404s: every false 404 the cluster source brought since the page opened, per
// client (user agent and user), the server that answered it and the GVR that server lacked — the
// rollout question the stream's rows scroll past.
import { useSyncExternalStore } from 'react';
import { False404Table } from '../../shared/ui/False404Table.js';
import { formatTime } from '../../shared/ui/format.js';
import type { ClusterFeed } from './cluster-feed.js';

/** Rows shown; the rest are summed in one line. */
const MAX_SHOWN = 12;

export function False404sByClient({ feed }: { feed: ClusterFeed }) {
  const tally = useSyncExternalStore(feed.subscribe, feed.getFalse404s);
  const total = tally.rows.reduce((n, r) => n + r.count, 0) + tally.unattributed;
  return (
    <section className="card false-404s" aria-labelledby="false-404s-title">
      <h3 id="false-404s-title">
        False 404s by client <span className="muted small">since {formatTime(tally.since)}</span>
      </h3>
      {total === 0 ? (
        <p className="muted small">None in the apiservers&apos; audit logs since then: no server answered 404 for a GVR a peer serves.</p>
      ) : (
        <False404Table
          label="False 404s by client"
          caption={
            <>
              {total.toLocaleString()} false {total === 1 ? '404' : '404s'}
              {tally.unattributed > 0
                ? `, ${tally.unattributed.toLocaleString()} of them not named by client (a burst the core trimmed, or too many combinations)`
                : ''}
            </>
          }
          rows={tally.rows}
          shown={MAX_SHOWN}
          whenHeading="Latest"
          when={(r) => formatTime(r.last)}
          rest="other client, server and API combinations"
        />
      )}
    </section>
  );
}
