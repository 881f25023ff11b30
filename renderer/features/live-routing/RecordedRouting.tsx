// Live routing on a snapshot opened offline: the requests it recorded, as the live stream showed them.
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { routeOutcomes } from '../../../proxy-core/contract/index.js';
import { queryKeys, useCoreClient } from '../../shared/client-context.js';
import { useServerNames } from '../../shared/server-names.js';
import { formatDateTime, outcomeStyle, type ShownOutcome } from '../../shared/ui/format.js';
import { Empty, ErrorState, Loading } from '../../shared/ui/states.js';
import type { OfflineView } from '../../shared/view-mode.js';
import { EventTable } from './EventTable.js';
import { OutcomeFilter, useOutcomeFilter } from './OutcomeFilter.js';
import { RateChart, seriesFromEvents } from './RateChart.js';
import { MAX_ROWS } from './routing-feed.js';
import { portRow } from './stream-rows.js';

const outcomeLabel = (o: ShownOutcome) => outcomeStyle[o].label;

/** A snapshot's recent requests, as the live stream showed them (newest first, same filters). */
export function RecordedRouting({ offline }: { offline: OfflineView }) {
  const client = useCoreClient();
  // Every recorded event for the chart; the table keeps the page's usual bound, newest first.
  const query = useQuery({ queryKey: [...queryKeys.events, 'recorded'], queryFn: () => client.getEvents() });
  const nameOf = useServerNames();
  const rows = useMemo(
    () =>
      (query.data?.events ?? [])
        .slice(-MAX_ROWS)
        .reverse()
        .map((e) => portRow(e, outcomeLabel, nameOf)),
    [query.data, nameOf],
  );
  const series = useMemo(() => seriesFromEvents(query.data?.events ?? []), [query.data]);
  const { hidden, visible, inBuffer, toggle } = useOutcomeFilter(rows);
  const recorded = offline.snapshot.events.length;
  return (
    <section className="panel routing" aria-labelledby="routing-title">
      <header className="panel-head">
        <div>
          <h2 id="routing-title">Routing at capture time</h2>
          <p className="muted">
            The requests the snapshot recorded before {formatDateTime(Date.parse(offline.snapshot.takenAt))}
            {recorded > rows.length ? ` (the newest ${rows.length.toLocaleString()} of ${recorded.toLocaleString()})` : ''}: the server a
            load balancer handed each to, what Peerscope decided, and who answered.
          </p>
        </div>
      </header>
      <div className="card chart-card">
        <h3>Requests per second by outcome (recorded)</h3>
        <RateChart series={series} live={false} />
      </div>
      <OutcomeFilter outcomes={routeOutcomes} hidden={hidden} inBuffer={inBuffer} toggle={toggle} />
      {query.isPending ? (
        <Loading what="recorded requests" />
      ) : query.isError ? (
        <ErrorState error={query.error} retry={() => void query.refetch()} />
      ) : rows.length === 0 ? (
        <Empty>The snapshot recorded no request: none had gone through the local port when it was taken.</Empty>
      ) : (
        <EventTable rows={visible} withSource={false} />
      )}
    </section>
  );
}
