// Server health: each apiserver's state now (ready / draining / down / discovery stale) and, when the
// core follows the audit logs, what it answered per minute; its probe latency and failed requests over
// the rollout, and a timeline of its health and release — when each server was upgraded.
import { useQuery } from '@tanstack/react-query';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import {
  reachabilityLines,
  shownName,
  type ClusterMinute,
  type HealthHistory,
  type HealthSample,
  type HealthState as Health,
  type ServerStatus,
} from '../../../proxy-core/contract/index.js';
import { queryKeys, useCoreClient } from '../../shared/client-context.js';
import { useServerNames, type ServerNamer } from '../../shared/server-names.js';
import { formatClock, formatDateTime, formatMs, healthLabel, shortRelease } from '../../shared/ui/format.js';
import { Empty, ErrorState, HealthBadge, Loading } from '../../shared/ui/states.js';
import { useOffline } from '../../shared/view-mode.js';
import { ClusterRates } from './ClusterRates.js';
import { OwnMvpFacts } from './OwnMvp.js';
import { MissingRegistrationsFromRouteTable } from '../../shared/MissingRegistrations.js';

const SERIES_COLORS = ['#5b7cfa', '#3fa66b', '#e8a23a', '#a371f7', '#e5534b', '#2bb3c0', '#d16ba5', '#8b949e'];

export interface TimelineSegment {
  from: number;
  to: number;
  health: Health;
  release: string;
}

/** Consecutive samples with the same health and release become one segment. */
export function timelineSegments(samples: readonly HealthSample[], now: number): TimelineSegment[] {
  const out: TimelineSegment[] = [];
  for (const s of samples) {
    const release = shortRelease(s.gitVersion);
    const last = out.at(-1);
    if (last && last.health === s.health && (last.release === release || release === '?')) {
      last.to = s.at;
      continue;
    }
    if (last) last.to = s.at;
    out.push({ from: s.at, to: s.at, health: s.health, release: release === '?' && last ? last.release : release });
  }
  const last = out.at(-1);
  if (last) last.to = Math.max(last.to, now);
  return out;
}

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

  return (
    <section className="panel health" aria-labelledby="health-title">
      <header className="panel-head">
        <div>
          <h2 id="health-title">{offline ? 'Server health at capture time' : 'Server health'}</h2>
          <p className="muted">
            {offline
              ? `Each apiserver as the snapshot recorded it at ${takenAt}: health, failing checks, release, probe latency and its own discovery.`
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
            <Timeline history={history.data.servers} nameOf={nameOf} />
          </div>
          <div className="card chart-card">
            <h3>Probe latency</h3>
            <LatencyChart history={history.data.servers} nameOf={nameOf} />
          </div>
          <div className="card chart-card">
            <h3>Failed requests per server</h3>
            <ErrorChart history={history.data.servers} nameOf={nameOf} />
          </div>
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

function Timeline({ history, nameOf }: { history: { name: string; samples: HealthSample[] }[]; nameOf: ServerNamer }) {
  const now = Date.now();
  const all = history.flatMap((h) => h.samples.map((s) => s.at));
  if (all.length === 0) return <Empty>No probe has answered yet.</Empty>;
  const start = Math.min(...all);
  const span = Math.max(now - start, 1);
  return (
    <div className="timeline" role="list" aria-label="Health and release per apiserver over time">
      {history.map((h) => (
        <div className="timeline-row" role="listitem" key={h.name}>
          <span className="timeline-name" title={h.name}>
            {nameOf(h.name)}
          </span>
          <div className="timeline-track">
            {timelineSegments(h.samples, now).map((seg, i) => {
              const widthPercent = Math.max(((seg.to - seg.from) / span) * 100, 0.4);
              return (
                <span
                  key={i}
                  className={`seg seg-${seg.health}`}
                  style={{ left: `${((seg.from - start) / span) * 100}%`, width: `${widthPercent}%` }}
                  title={`${healthLabel[seg.health]} · ${seg.release} · ${formatClock(seg.from)}–${formatClock(seg.to)}`}
                >
                  {/* A label cut to one letter says nothing: narrow segments keep only their title. */}
                  {widthPercent >= 4 && <span className="seg-label">{seg.release}</span>}
                </span>
              );
            })}
          </div>
        </div>
      ))}
      <div className="timeline-axis" aria-hidden="true">
        <span>{formatClock(start)}</span>
        <span>{formatClock(now)}</span>
      </div>
      <ul className="legend">
        {(['ready', 'draining', 'not-ready', 'unreachable', 'gone', 'unknown'] as Health[]).map((hs) => (
          <li key={hs}>
            <span className={`cell-chip seg-${hs}`} aria-hidden="true" /> {healthLabel[hs]}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The time axis both charts share: clock times across the samples' span. */
const TIME_AXIS = {
  dataKey: 'at',
  type: 'number',
  domain: ['dataMin', 'dataMax'],
  tickFormatter: (t: number) => formatClock(t),
  minTickGap: 48,
  className: 'axis',
} as const;

function LatencyChart({ history, nameOf }: { history: { name: string; samples: HealthSample[] }[]; nameOf: ServerNamer }) {
  const withLatency = history.map((h) => ({
    name: h.name,
    shown: nameOf(h.name),
    data: h.samples.filter((s) => s.latencyMs !== undefined).map((s) => ({ at: s.at, latencyMs: s.latencyMs })),
  }));
  if (withLatency.every((h) => h.data.length === 0)) return <Empty>No latency measured yet.</Empty>;
  return (
    <div className="chart" role="img" aria-label="Probe latency per apiserver over time">
      <ResponsiveContainer width="100%" height={200}>
        <LineChart margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" className="grid" vertical={false} />
          <XAxis {...TIME_AXIS} allowDuplicatedCategory={false} />
          <YAxis unit=" ms" width={60} className="axis" />
          <Tooltip
            labelFormatter={(t) => formatClock(Number(t))}
            formatter={(v) => formatMs(Number(v))}
            isAnimationActive={false}
            wrapperClassName="tooltip"
          />
          <Legend />
          {withLatency.map((h, i) => (
            <Line
              key={h.name}
              data={h.data}
              dataKey="latencyMs"
              name={h.shown}
              stroke={SERIES_COLORS[i % SERIES_COLORS.length]}
              dot={false}
              strokeWidth={1.5}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

export type ErrorRow = { at: number } & Record<string, number>;

/** One row per 5-second bucket in which any server failed a request; each server's count as a column. */
export function errorRows(history: HealthHistory['servers']): ErrorRow[] {
  const rows = new Map<number, ErrorRow>();
  for (const h of history) {
    for (const b of h.errors ?? []) {
      const row = rows.get(b.at) ?? ({ at: b.at } as ErrorRow);
      row[h.name] = (row[h.name] ?? 0) + b.count;
      rows.set(b.at, row);
    }
  }
  return [...rows.values()].sort((a, b) => a.at - b.at);
}

function ErrorChart({ history, nameOf }: { history: HealthHistory['servers']; nameOf: ServerNamer }) {
  const rows = errorRows(history);
  if (rows.length === 0) return <Empty>No request through the port has failed at any apiserver.</Empty>;
  const total = (name: string) => rows.reduce((n, r) => n + (r[name] ?? 0), 0);
  return (
    <div
      className="chart"
      role="img"
      aria-label={`Failed requests per apiserver per 5 seconds: ${history.map((h) => `${nameOf(h.name)} ${total(h.name)}`).join(', ')}`}
    >
      <ResponsiveContainer width="100%" height={180}>
        <BarChart data={rows} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" className="grid" vertical={false} />
          <XAxis {...TIME_AXIS} />
          <YAxis allowDecimals={false} width={60} className="axis" />
          <Tooltip labelFormatter={(t) => `${formatClock(Number(t))} (5 s)`} isAnimationActive={false} wrapperClassName="tooltip" />
          <Legend />
          {history.map((h, i) => (
            <Bar
              key={h.name}
              dataKey={h.name}
              name={nameOf(h.name)}
              stackId="errors"
              fill={SERIES_COLORS[i % SERIES_COLORS.length]}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
