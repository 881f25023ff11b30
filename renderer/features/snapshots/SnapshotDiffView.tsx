// The comparison of two snapshots (the core's SnapshotDiff): servers added, removed and upgraded, GVRs
// each server gained and lost, GVRs that became or stopped being skewed, and per GVR the shares of
// 404 / 503 / rerouted requests that changed. Long lists start short and open on request.
import { useState } from 'react';
import { snapshotServerNames, type SnapshotDiff } from '../../../proxy-core/contract/index.js';
import { formatDateTime, formatShare, gvrKeyLabel, outcomeStyle } from '../../shared/ui/format.js';
import { Empty } from '../../shared/ui/states.js';
import type { LibraryEntry } from '../../shared/snapshot-library.js';

const LIST_SHOWN = 12;
const RATES_SHOWN = 30;

export function diffCounts(d: SnapshotDiff) {
  return {
    added: d.servers.added.length,
    removed: d.servers.removed.length,
    upgraded: d.servers.upgraded.length,
    healthChanged: d.servers.healthChanged.length,
    gained: d.gvrs.reduce((n, g) => n + g.gained.length, 0),
    lost: d.gvrs.reduce((n, g) => n + g.lost.length, 0),
    became: d.skew.became.length,
    resolved: d.skew.resolved.length,
    rates: d.outcomeRates.length,
  };
}

export function SnapshotDiffView({ before, after, diff }: { before: LibraryEntry; after: LibraryEntry; diff: SnapshotDiff }) {
  const n = diffCounts(diff);
  const nameOf = snapshotServerNames(after.snapshot, before.snapshot);
  const none = Object.values(n).every((x) => x === 0);
  const chips: [number, string, string][] = [
    [n.upgraded, 'server upgraded', 'servers upgraded'],
    [n.added, 'server added', 'servers added'],
    [n.removed, 'server removed', 'servers removed'],
    [n.healthChanged, 'health change', 'health changes'],
    [n.gained, 'GVR gained', 'GVRs gained'],
    [n.lost, 'GVR lost', 'GVRs lost'],
    [n.became, 'became skewed', 'became skewed'],
    [n.resolved, 'no longer skewed', 'no longer skewed'],
    [n.rates, 'outcome share changed', 'outcome shares changed'],
  ];
  return (
    <section className="diff-result" aria-label="Comparison">
      <p className="diff-title">
        <strong className="mono">{before.label}</strong>{' '}
        <span className="muted">({formatDateTime(Date.parse(before.snapshot.takenAt))})</span>
        <span aria-label="to"> → </span>
        <strong className="mono">{after.label}</strong>{' '}
        <span className="muted">({formatDateTime(Date.parse(after.snapshot.takenAt))})</span>
      </p>
      {none ? (
        <Empty>No differences: the same servers and releases, the same GVRs, the same skew and the same outcome shares.</Empty>
      ) : (
        <>
          <ul className="diff-summary" aria-label="Summary of changes">
            {chips
              .filter(([count]) => count > 0)
              .map(([count, one, many]) => (
                <li key={many} className="summary-chip">
                  <strong>{count.toLocaleString()}</strong> {count === 1 ? one : many}
                </li>
              ))}
          </ul>
          <div className="diff-sections">
            {(n.added || n.removed || n.upgraded || n.healthChanged) > 0 && <ServersSection diff={diff} nameOf={nameOf} />}
            {diff.gvrs.length > 0 && (
              <section aria-labelledby="diff-gvrs">
                <h4 id="diff-gvrs">GVRs gained and lost, per server</h4>
                {diff.gvrs.map((g) => (
                  <div key={g.server} className="diff-server">
                    <p className="diff-group">
                      {nameOf(g.server)} <span className="diff-add">+{g.gained.length}</span>{' '}
                      <span className="diff-del">−{g.lost.length}</span>
                    </p>
                    {g.gained.length > 0 && <p className="diff-sub">gained</p>}
                    <GvrList items={g.gained} sign="+" label={`GVRs ${nameOf(g.server)} gained`} />
                    {g.lost.length > 0 && <p className="diff-sub">lost</p>}
                    <GvrList items={g.lost} sign="−" label={`GVRs ${nameOf(g.server)} lost`} />
                  </div>
                ))}
              </section>
            )}
            {(n.became || n.resolved) > 0 && (
              <section aria-labelledby="diff-skew">
                <h4 id="diff-skew">Skew</h4>
                {n.became > 0 && <p className="diff-group">became skewed (served by some servers only)</p>}
                <GvrList items={diff.skew.became} sign="+" label="GVRs that became skewed" tone="warn" />
                {n.resolved > 0 && <p className="diff-group">no longer skewed</p>}
                <GvrList items={diff.skew.resolved} sign="−" label="GVRs no longer skewed" tone="ok" />
              </section>
            )}
            {n.rates > 0 && <RatesSection diff={diff} />}
          </div>
        </>
      )}
    </section>
  );
}

function ServersSection({ diff, nameOf }: { diff: SnapshotDiff; nameOf: (name: string) => string }) {
  const rows: { name: string; change: string; detail: string; tone: string }[] = [
    ...diff.servers.upgraded.map((u) => ({ name: u.name, change: 'upgraded', detail: `${u.from} → ${u.to}`, tone: 'diff-add' })),
    ...diff.servers.added.map((name) => ({ name, change: 'added', detail: '', tone: 'diff-add' })),
    ...diff.servers.removed.map((name) => ({ name, change: 'removed', detail: '', tone: 'diff-del' })),
    ...diff.servers.healthChanged.map((h) => ({ name: h.name, change: 'health', detail: `${h.from} → ${h.to}`, tone: '' })),
  ];
  return (
    <section aria-labelledby="diff-servers">
      <h4 id="diff-servers">Servers</h4>
      <table className="simple-table">
        <thead>
          <tr>
            <th scope="col">server</th>
            <th scope="col">change</th>
            <th scope="col">from → to</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.name}-${r.change}`}>
              <th scope="row" title={nameOf(r.name) === r.name ? undefined : r.name}>
                {nameOf(r.name)}
              </th>
              <td className={r.tone}>{r.change}</td>
              <td className="mono">{r.detail || '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function GvrList({ items, sign, label, tone }: { items: readonly string[]; sign: '+' | '−'; label: string; tone?: 'warn' | 'ok' }) {
  const [all, setAll] = useState(false);
  if (items.length === 0) return null;
  const shown = all ? items : items.slice(0, LIST_SHOWN);
  const cls = tone === 'warn' ? 'warn-text' : tone === 'ok' ? 'diff-add' : sign === '+' ? 'diff-add' : 'diff-del';
  return (
    <ul className="gvr-list mono" aria-label={label}>
      {shown.map((g) => (
        <li key={g} className={cls}>
          {sign} {gvrKeyLabel(g)}
        </li>
      ))}
      {items.length > LIST_SHOWN && (
        <li>
          <button type="button" className="link small" onClick={() => setAll(!all)}>
            {all ? 'Show fewer' : `… and ${(items.length - LIST_SHOWN).toLocaleString()} more`}
          </button>
        </li>
      )}
    </ul>
  );
}

function RatesSection({ diff }: { diff: SnapshotDiff }) {
  const [all, setAll] = useState(false);
  const sorted = [...diff.outcomeRates].sort(
    (a, b) => Math.abs(b.after - b.before) - Math.abs(a.after - a.before) || a.gvr.localeCompare(b.gvr),
  );
  const shown = all ? sorted : sorted.slice(0, RATES_SHOWN);
  return (
    <section aria-labelledby="diff-rates">
      <h4 id="diff-rates">Outcome shares per GVR (404, 503, rerouted)</h4>
      <div className="table-scroll">
        <table className="simple-table">
          <thead>
            <tr>
              <th scope="col">GVR</th>
              <th scope="col">outcome</th>
              <th scope="col" className="num">
                before
              </th>
              <th scope="col" className="num">
                after
              </th>
              <th scope="col" className="num">
                change
              </th>
              <th scope="col" className="num">
                requests
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => {
              const delta = r.after - r.before;
              // More 404s, 503s or reroutes is what an operator must look at.
              const tone = delta > 0 ? (r.outcome === 'rerouted' ? 'warn-text' : 'error-text') : 'diff-add';
              return (
                <tr key={`${r.gvr}-${r.outcome}`}>
                  <th scope="row" className="mono">
                    {gvrKeyLabel(r.gvr)}
                  </th>
                  <td>
                    <span className="swatch" style={{ background: outcomeStyle[r.outcome].color }} aria-hidden="true" />{' '}
                    {outcomeStyle[r.outcome].label}
                  </td>
                  <td className="num mono">{formatShare(r.before)}</td>
                  <td className="num mono">{formatShare(r.after)}</td>
                  <td className={`num mono ${tone}`}>
                    {delta > 0 ? '+' : '−'}
                    {(Math.abs(delta) * 100).toFixed(1)} pt
                  </td>
                  <td className="num mono muted">
                    {r.requestsBefore.toLocaleString()} → {r.requestsAfter.toLocaleString()}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {sorted.length > RATES_SHOWN && (
        <button type="button" className="link small" onClick={() => setAll(!all)}>
          {all ? 'Show the largest changes' : `Show all ${sorted.length.toLocaleString()}`}
        </button>
      )}
    </section>
  );
}
