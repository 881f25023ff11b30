// Upgrade impact: which clients call what the upgrade to a target release removes, what only some of
// the current servers serve, what the apiservers warn is deprecated, and what only the target serves
// — from the requests through the port (CoreClient.getImpactReport). Live, the report is read again
// every few seconds and the target can be chosen; offline, it is the one the snapshot recorded; over a
// recorded window, it is the window's (the moment client reads it from the recording), with who got
// false 404s in it below.
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import {
  impactKinds,
  impactRank,
  type ImpactFinding,
  type ImpactFindingSource,
  type ImpactKind,
  type ImpactReport,
} from '../../../proxy-core/contract/index.js';
import { useCoreClient } from '../../shared/client-context.js';
import { useShownSession } from '../../shared/shown-recording.js';
import { formatClock, formatDateTime } from '../../shared/ui/format.js';
import { Empty, ErrorState, Loading } from '../../shared/ui/states.js';
import { useOffline, useTimeWindow } from '../../shared/view-mode.js';
import { FindingRow } from './FindingRow.js';
import { clientKey, describeSources, IMPACT_LABELS, SOURCE_LABELS, sourceOf } from './labels.js';
import { reachesNow, WindowFalse404s } from './WindowFalse404s.js';

export const impactQueryKey = ['impact-report'] as const;

type SortKey = 'impact' | 'volume';

const volume = (f: ImpactFinding) => f.verbs.reduce((n, v) => n + v.count, 0);

export function sortFindings(findings: readonly ImpactFinding[], by: SortKey): ImpactFinding[] {
  const byImpact = (a: ImpactFinding, b: ImpactFinding) => impactRank(b.impact) - impactRank(a.impact);
  const byVolume = (a: ImpactFinding, b: ImpactFinding) => volume(b) - volume(a);
  return [...findings].sort((a, b) => (by === 'impact' ? byImpact(a, b) || byVolume(a, b) : byVolume(a, b) || byImpact(a, b)));
}

export function UpgradeImpact() {
  const client = useCoreClient();
  const offline = useOffline();
  const window = useTimeWindow();
  const [to, setTo] = useState<string | undefined>(undefined);
  // A recording opened from a file, at its end: the report is its whole span's, and the file never changes.
  const recording = useShownSession()?.recording;
  const report = useQuery({
    queryKey: [...impactQueryKey, to ?? '', window?.from, window?.to],
    queryFn: () => client.getImpactReport(to ? { to } : {}),
    refetchInterval: offline || recording || (window && !reachesNow(window)) ? false : 5_000,
    placeholderData: (previous) => previous,
  });
  const over = window
    ? ` from ${formatClock(window.from)} to ${formatClock(window.to - 1)} (recorded)`
    : recording
      ? ` over the whole recording, ${formatClock(recording.startedAt)} to ${formatClock(recording.endedAt)}`
      : ` over the last ${formatWindow(report.data?.window.minutes ?? 0)}`;
  return (
    <section className="panel impact" aria-labelledby="impact-title">
      <header className="panel-head">
        <div>
          <h2 id="impact-title">
            {offline ? 'Upgrade impact at capture time' : window ? 'Upgrade impact over the recorded window' : 'Upgrade impact'}
          </h2>
          <p className="muted small">
            Which clients call what the upgrade changes, from the requests
            {report.data
              ? ` of ${report.data.clients} ${report.data.clients === 1 ? 'client' : 'clients'} ${describeSources(report.data)}${over}`
              : ' through the port'}
            .
          </p>
        </div>
        {report.data && (
          <label className="field">
            <span>Target release</span>
            {offline ? (
              <code>{report.data.target.release}</code>
            ) : (
              <select value={to ?? report.data.target.release} onChange={(e) => setTo(e.target.value)}>
                {report.data.targets.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            )}
          </label>
        )}
      </header>
      {report.isPending ? (
        <Loading what="the upgrade-impact report" />
      ) : report.isError ? (
        <ErrorState error={report.error} retry={offline ? undefined : () => void report.refetch()} />
      ) : (
        <Findings report={report.data} />
      )}
      {window && <WindowFalse404s window={window} />}
    </section>
  );
}

function Findings({ report }: { report: ImpactReport }) {
  const [sort, setSort] = useState<SortKey>('impact');
  const [clientFilter, setClientFilter] = useState('');
  const [sourceFilter, setSourceFilter] = useState<ImpactFindingSource | ''>('');
  const clients = useMemo(() => [...new Set(report.findings.map(clientKey))].sort(), [report.findings]);
  const sources = useMemo(() => [...new Set(report.findings.map((f) => sourceOf(f, report)))], [report]);
  const rows = useMemo(
    () =>
      sortFindings(
        report.findings.filter(
          (f) => (!clientFilter || clientKey(f) === clientFilter) && (!sourceFilter || sourceOf(f, report) === sourceFilter),
        ),
        sort,
      ),
    [report, clientFilter, sourceFilter, sort],
  );
  const from = [...new Set(report.current.map((s) => s.gitVersion ?? '?'))].join(', ');

  if (report.findings.length === 0) {
    return (
      <Empty>
        Nothing the clients called changes with the upgrade from {from || 'the current servers'} to {report.target.release}: every GVR they
        used is served by every current server and by the target, and no apiserver sent a deprecation warning.
      </Empty>
    );
  }
  return (
    <div className="card">
      <div className="toolbar impact-toolbar">
        <ImpactCounts findings={report.findings} />
        <label className="field">
          <span>Client</span>
          <select value={clientFilter} onChange={(e) => setClientFilter(e.target.value)} aria-label="Filter by client">
            <option value="">All {clients.length} with findings</option>
            {clients.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        {sources.length > 1 && (
          <label className="field">
            <span>Source</span>
            <select
              value={sourceFilter}
              onChange={(e) => setSourceFilter(e.target.value as ImpactFindingSource | '')}
              aria-label="Filter by source"
            >
              <option value="">All {sources.length} sources</option>
              {sources.map((s) => (
                <option key={s} value={s}>
                  {SOURCE_LABELS[s].label}
                </option>
              ))}
            </select>
          </label>
        )}
        <span className="muted small">
          {from} → {report.target.release} · as of {formatDateTime(report.at)}
          {report.untracked > 0 ? ` · ${report.untracked} requests over the usage limit not counted` : ''}
        </span>
      </div>
      <table className="simple-table impact-table">
        <caption className="muted small">
          {rows.length} of {report.findings.length} findings, sorted by {sort}
        </caption>
        <thead>
          <tr>
            <SortHeader label="Impact" by="impact" sort={sort} setSort={setSort} />
            <th scope="col">Client</th>
            <th scope="col">Source</th>
            <th scope="col">API</th>
            <SortHeader label="Requests" by="volume" sort={sort} setSort={setSort} />
            <th scope="col">What happens</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((f) => (
            <FindingRow
              key={`${sourceOf(f, report)} ${clientKey(f)} ${f.client.userAgent} ${f.group}/${f.version}/${f.resource}`}
              finding={f}
              report={report}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** How many findings of each impact kind, each kind's help on hover. */
function ImpactCounts({ findings }: { findings: readonly ImpactFinding[] }) {
  const counts = useMemo(
    () => Object.fromEntries(impactKinds.map((k) => [k, findings.filter((f) => f.impact === k).length])) as Record<ImpactKind, number>,
    [findings],
  );
  return (
    <ul className="impact-counts" aria-label="Findings by impact">
      {impactKinds.map((k) => (
        <li key={k} title={IMPACT_LABELS[k].help}>
          <span className={`badge impact-${k}`}>{IMPACT_LABELS[k].label}</span> {counts[k]}
        </li>
      ))}
    </ul>
  );
}

function SortHeader({ label, by, sort, setSort }: { label: string; by: SortKey; sort: SortKey; setSort: (s: SortKey) => void }) {
  return (
    <th scope="col" aria-sort={sort === by ? 'descending' : 'none'} className={by === 'volume' ? 'num' : undefined}>
      <button type="button" className="sort-button" onClick={() => setSort(by)} aria-pressed={sort === by}>
        {label}
        {sort === by ? ' ▾' : ''}
      </button>
    </th>
  );
}

function formatWindow(minutes: number): string {
  return minutes >= 1 ? `${minutes.toFixed(1)} min` : `${Math.round(minutes * 60)} s`;
}
