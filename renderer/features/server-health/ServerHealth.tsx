// Server health: each apiserver's state now (ready / draining / down / discovery stale) and, when the
// core follows the audit logs, what it answered per minute; its probe latency and failed requests over
// the rollout, and a timeline of its health and release — when each server was upgraded.
import { useQuery } from '@tanstack/react-query';
import { reachabilityLines, shownName, type ClusterMinute, type ServerStatus } from '../../../proxy-core/contract/index.js';
import { queryKeys, useCoreClient } from '../../shared/client-context.js';
import { useServerNames } from '../../shared/server-names.js';
import { formatClock, formatDateTime, formatMs } from '../../shared/ui/format.js';
import { Empty, ErrorState, HealthBadge, Loading } from '../../shared/ui/states.js';
import { AuditProblemsNote } from '../../shared/ui/audit-problems.js';
import { useMoment, useOffline } from '../../shared/view-mode.js';
import { ErrorChart, LatencyChart } from './HealthCharts.js';
import { Timeline } from './HealthTimeline.js';
import { ClusterRates } from './ClusterRates.js';
import { OwnMvpFacts } from './OwnMvp.js';
import { MissingRegistrationsFromRouteTable } from '../../shared/MissingRegistrations.js';

export { errorRows, type ErrorRow } from './HealthCharts.js';
export { timelineSegments, type TimelineSegment } from './HealthTimeline.js';

export function ServerHealth() {
  const client = useCoreClient();
  // A snapshot holds each server as it was when taken, not its history over the rollout.
  const offline = useOffline();
  const overview = useQuery({ queryKey: queryKeys.overview, queryFn: () => client.getOverview() });
  const history = useQuery({
    queryKey: queryKeys.healthHistory,
    queryFn: () => client.getHealthHistory(),
    refetchInterval: 2_000,
    enabled: !offline,
  });
  const takenAt = offline ? formatDateTime(Date.parse(offline.snapshot.takenAt)) : '';
  const nameOf = useServerNames();
  // A recorded moment: each server as recorded then, the timeline up to then.
  const moment = useMoment();

  return (
    <section className="panel health" aria-labelledby="health-title">
      <header className="panel-head">
        <div>
          <h2 id="health-title">
            {offline ? 'Server health at capture time' : moment ? `Server health at ${formatClock(moment.at)}` : 'Server health'}
          </h2>
          <p className="muted">
            {offline
              ? `Each apiserver as the snapshot recorded it at ${takenAt}: health, failing checks, release, probe latency and its own discovery.`
              : moment
                ? `Each apiserver as the session's recording had it at ${formatDateTime(moment.at)}: health, release and its own discovery.`
                : 'Health probes (/readyz, /version) of every apiserver, and its own discovery.'}
          </p>
        </div>
      </header>
      <MissingRegistrationsFromRouteTable />
      {overview.isPending ? (
        <Loading what="apiservers" />
      ) : overview.isError ? (
        <ErrorState error={overview.error} retry={() => void overview.refetch()} />
      ) : overview.data.servers.length === 0 ? (
        <Empty>No apiservers are configured.</Empty>
      ) : (
        <>
          <OutOfReach servers={overview.data.servers} />
          <AuditProblemsNote problems={overview.data.cluster?.problems} nameOf={nameOf} />
          <div className="server-cards">
            {overview.data.servers.map((s) => (
              <ServerCard key={s.name} server={s} clusterMinutes={history.data?.servers.find((h) => h.name === s.name)?.cluster} />
            ))}
          </div>
        </>
      )}
      {offline ? (
        <div className="card">
          <h3>Health and release over time</h3>
          <Empty>
            A snapshot records each server at one moment ({takenAt}), shown above; the timeline and latency series of a rollout are drawn
            live only.
          </Empty>
        </div>
      ) : history.isError ? (
        <ErrorState error={history.error} retry={() => void history.refetch()} />
      ) : history.data ? (
        <>
          <div className="card">
            <h3>Health and release over time</h3>
            <Timeline history={history.data.servers} nameOf={nameOf} {...(moment ? { now: moment.at } : {})} />
          </div>
          {/* The recording holds no probe latencies or failure series yet: a moment shows the timeline only. */}
          {!moment && (
            <>
              <div className="card chart-card">
                <h3>Probe latency</h3>
                <LatencyChart history={history.data.servers} nameOf={nameOf} />
              </div>
              <div className="card chart-card">
                <h3>Failed requests per server</h3>
                <ErrorChart history={history.data.servers} nameOf={nameOf} />
              </div>
            </>
          )}
        </>
      ) : (
        <Loading what="health history" />
      )}
    </section>
  );
}

/** The servers out of reach, one line per cause (timeout, refused, certificate…), and which server carries the traffic. */
function OutOfReach({ servers }: { servers: readonly ServerStatus[] }) {
  const lines = reachabilityLines(servers);
  if (lines.length === 0) return null;
  return (
    <ul className="card out-of-reach" aria-label="Servers out of reach">
      {lines.map((line) => (
        <li key={line} className="warn-text small">
          {line}
        </li>
      ))}
    </ul>
  );
}

function ServerCard({ server: s, clusterMinutes }: { server: ServerStatus; clusterMinutes: ClusterMinute[] | undefined }) {
  const offline = useOffline();
  const stale = s.discovery.state === 'stale';
  const shown = shownName(s);
  return (
    <article className={`card server-card health-border-${s.health}`} aria-label={`apiserver ${shown}`}>
      <header className="server-card-head">
        <div className="server-card-title">
          <h3>{shown}</h3>
          {/* The identity beside the host name: what the lease, the route header and the metrics call it. */}
          {shown !== s.name && (
            <span className="server-id mono muted small" title={s.source === 'lease' ? 'its identity lease' : 'its identity'}>
              {s.name}
            </span>
          )}
        </div>
        <HealthBadge health={s.health} />
      </header>
      <dl className="facts">
        <div>
          <dt>release</dt>
          <dd className="mono">{s.gitVersion ?? '—'}</dd>
        </div>
        <div>
          <dt>latency</dt>
          <dd className="mono">{formatMs(s.latencyMs)}</dd>
        </div>
        <div>
          <dt>discovery</dt>
          <dd>
            {s.discovery.state === 'none' ? 'not read yet' : `${s.discovery.gvrCount} GVRs`}
            {stale && <span className="badge warn"> stale</span>}
          </dd>
        </div>
        <div>
          <dt>{offline ? 'recorded' : 'last probe'}</dt>
          <dd className="mono">{s.lastProbeAt ? formatClock(s.lastProbeAt) : '—'}</dd>
        </div>
        <div>
          <dt>url</dt>
          <dd className="mono ellipsis" title={s.url}>
            {s.url}
          </dd>
        </div>
      </dl>
      {s.gone && (
        <p className="muted small">
          left the cluster at {formatClock(s.gone.at)}; never routed to; leaves this list at {formatClock(s.gone.removeAt)}
        </p>
      )}
      {s.failingChecks.length > 0 && <p className="warn-text small">failing: {s.failingChecks.join(', ')}</p>}
      {(s.lastError || s.discovery.error) && (
        <p className="error-text small" title={s.lastError ?? s.discovery.error}>
          {s.lastError ?? s.discovery.error}
        </p>
      )}
      {s.ownMvp && <OwnMvpFacts mvp={s.ownMvp} />}
      {clusterMinutes && <ClusterRates server={shown} minutes={clusterMinutes} now={Date.now()} />}
    </article>
  );
}
