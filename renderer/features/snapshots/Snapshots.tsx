// Snapshots: export the live state to a file, open snapshot files (picker or drag-and-drop) to view
// them offline in every screen, and compare two (files, or the live state taken now). Reading a file
// and comparing are the core's (CoreClient.readSnapshot / compareSnapshots): a file is shown whole or
// not at all, and a bad one is named with the field or line and column at fault.
import { useMutation } from '@tanstack/react-query';
import { useRef, useState, useSyncExternalStore, type DragEvent, type FormEvent } from 'react';
import { MAX_SNAPSHOT_BYTES, type RoutingSnapshot, type SnapshotReadError } from '../../../proxy-core/contract/index.js';
import { formatClock, formatDateTime, gvrKeyLabel, outcomeStyle, shortRelease } from '../../src/ui/format.js';
import { adviceFor, errorMessage, isTransportFailure } from '../../src/ui/call-errors.js';
import { Empty, ErrorState, HealthBadge, Loading } from '../../src/ui/states.js';
import { useView, type ViewState } from '../../src/view-mode.js';
import { describeSource, downloadSnapshot, releasesSummary } from './describe.js';
import { LIVE_NOW, type ImportFailure, type LibraryEntry, type LibraryState } from './library.js';
import { SnapshotDiffView } from './SnapshotDiffView.js';

function useRequiredView(): ViewState {
  const view = useView();
  if (!view) throw new Error('the Snapshots screen needs the app’s view state');
  return view;
}

function useLibrary(view: ViewState): LibraryState {
  return useSyncExternalStore(view.library.subscribe, view.library.getState);
}

export const liveLabel = (at = Date.now()) => `live state at ${formatClock(at)}`;

export function Snapshots() {
  const view = useRequiredView();
  const state = useLibrary(view);
  return (
    <section className="panel snapshots" aria-labelledby="snapshots-title">
      <header className="panel-head">
        <div>
          <h2 id="snapshots-title">Snapshots</h2>
          <p className="muted">Record the routing state at each step of an upgrade, open a saved one offline, and compare two (before and after a step).</p>
        </div>
      </header>
      {view.offline && <OfflineSummary entry={view.offline.entry} />}
      <div className="snapshot-actions">
        <ExportCard />
        <ImportCard />
      </div>
      <LibraryCard entries={state.entries} />
      <CompareCard state={state} />
    </section>
  );
}

function ExportCard() {
  const view = useRequiredView();
  const exporting = useMutation({ mutationFn: () => view.live.takeSnapshot(), onSuccess: downloadSnapshot });
  const keeping = useMutation({
    mutationFn: () => view.live.takeSnapshot(),
    onSuccess: (snapshot) => view.library.add(snapshot, liveLabel(Date.parse(snapshot.takenAt)), 'live'),
  });
  const error = exporting.error ?? keeping.error;
  return (
    <div className="card">
      <h3>Record the live state</h3>
      <p className="muted small">Servers and releases, each server’s own GVRs, the route table with its skew, counters by outcome × GVR × server and the recent requests. Never credentials.</p>
      <div className="toolbar card-actions">
        <button type="button" className="btn btn-primary" onClick={() => exporting.mutate()} disabled={exporting.isPending}>
          {exporting.isPending ? 'Exporting…' : 'Export current state'}
        </button>
        <button type="button" className="btn" onClick={() => keeping.mutate()} disabled={keeping.isPending}>
          Keep for comparison
        </button>
      </div>
      {error && <p className="error-text small" role="alert">{error.message}</p>}
    </div>
  );
}

function ImportCard() {
  const view = useRequiredView();
  const { importing } = useLibrary(view);
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);

  const importFiles = async (files: File[]) => {
    if (files.length === 0 || importing.busy) return;
    const failures: ImportFailure[] = [];
    const opened: LibraryEntry[] = [];
    for (const file of files) {
      const name = file.name || 'snapshot.json';
      view.library.setImporting({ busy: `Reading ${name}…`, failures });
      try {
        // A file over the limit is refused by its size: no need to read it into memory first.
        const text = file.size > MAX_SNAPSHOT_BYTES ? '' : await file.text();
        const result = await view.live.readSnapshot({ text, file: name, size: file.size });
        if (result.ok) opened.push(view.library.add(result.snapshot, name, 'file'));
        else failures.push({ file: name, error: result.error, message: result.error.message });
      } catch (err) {
        // A transport failure says nothing about the file: say so, and what to try, rather than blame it.
        const advice = adviceFor(err);
        failures.push(isTransportFailure(err)
          ? { file: name, message: `${name} was not read: ${errorMessage(err)}`, ...(advice ? { advice } : {}) }
          : { file: name, message: `${name}: could not be read: ${errorMessage(err)}`, ...(advice ? { advice } : {}) });
      }
    }
    view.library.setImporting({ failures });
    // One good file: show it. Several: they wait in the list below.
    if (opened.length === 1 && failures.length === 0) view.open(opened[0]!);
  };

  const onDrop = (e: DragEvent<HTMLDivElement>) => {
    e.preventDefault();
    setDragging(false);
    void importFiles([...e.dataTransfer.files]);
  };

  return (
    <div className="card">
      <h3>Open snapshot files</h3>
      <div
        className={`dropzone${dragging ? ' dragging' : ''}`}
        onDragEnter={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragOver={(e) => {
          e.preventDefault();
          e.dataTransfer.dropEffect = 'copy';
        }}
        onDragLeave={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={onDrop}
        data-testid="snapshot-dropzone"
      >
        <p>Drop snapshot files here, or</p>
        <button type="button" className="btn btn-primary" onClick={() => input.current?.click()} disabled={Boolean(importing.busy)}>
          Choose snapshot files…
        </button>
        <input
          ref={input}
          type="file"
          accept=".json,application/json"
          multiple
          hidden
          aria-label="Snapshot files to open"
          onChange={(e) => {
            const files = [...(e.target.files ?? [])];
            e.target.value = '';
            void importFiles(files);
          }}
        />
        <p className="muted small">A file is checked whole before anything is shown. Opening one shows it offline in every screen.</p>
      </div>
      {importing.busy && (
        <div className="state state-loading" role="status" aria-live="polite">
          <span className="spinner" aria-hidden="true" /> {importing.busy}
        </div>
      )}
      {importing.failures.map((f, i) => (
        <ImportError key={`${f.file}-${i}`} failure={f} />
      ))}
    </div>
  );
}

const REASON_HINT: Record<SnapshotReadError['reason'], string> = {
  'too-large': 'It is far larger than any snapshot: it is not one, or it was damaged.',
  syntax: 'The file is not valid JSON: it may have been cut short or edited by hand.',
  'not-a-snapshot': 'This is not a Peerscope routing snapshot.',
  'unknown-version': 'Its apiVersion is not a Peerscope snapshot format.',
  'newer-version': 'It was made by a newer Peerscope: update Peerscope to open it.',
  invalid: 'A field does not hold what the snapshot format requires (docs/snapshot.schema.json).',
};

function ImportError({ failure }: { failure: ImportFailure }) {
  const e = failure.error;
  return (
    <div className="import-error" role="alert">
      <p>
        <strong>{failure.file}</strong> could not be opened{e ? `: ${e.detail}` : '.'}
      </p>
      {e ? (
        <>
          <dl className="facts">
            <div><dt>file</dt><dd className="mono">{e.file}</dd></div>
            {e.line !== undefined && <div><dt>line</dt><dd className="mono">{`line ${e.line}, column ${e.column ?? 1}`}</dd></div>}
            {e.pointer !== undefined && <div><dt>field</dt><dd className="mono">{e.pointer || '/'}</dd></div>}
          </dl>
          <p className="muted small">{REASON_HINT[e.reason]}</p>
        </>
      ) : (
        <>
          <p className="mono small">{failure.message}</p>
          {failure.advice && <p className="muted small">{failure.advice}</p>}
        </>
      )}
    </div>
  );
}

function LibraryCard({ entries }: { entries: readonly LibraryEntry[] }) {
  const view = useRequiredView();
  return (
    <div className="card">
      <h3>Snapshots in this window</h3>
      {entries.length === 0 ? (
        <Empty>No snapshot yet: open a file, or keep the live state for comparison.</Empty>
      ) : (
        <div className="table-scroll">
          <table className="simple-table snapshot-list">
            <caption className="sr-only">Snapshots opened or kept in this window</caption>
            <thead>
              <tr>
                <th scope="col">snapshot</th>
                <th scope="col">taken at</th>
                <th scope="col">from</th>
                <th scope="col">servers</th>
                <th scope="col">GVRs</th>
                <th scope="col">events</th>
                <th scope="col"><span className="sr-only">actions</span></th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => {
                const viewing = view.offline?.entry.id === e.id;
                const s = e.snapshot;
                return (
                  <tr key={e.id} className={viewing ? 'selected' : ''}>
                    <th scope="row" className="mono">{e.label}{e.origin === 'live' && <span className="badge">kept live</span>}</th>
                    <td className="mono">{formatDateTime(Date.parse(s.takenAt))}</td>
                    <td>{describeSource(s)}</td>
                    <td>{s.servers.length} · <span className="mono">{releasesSummary(s)}</span></td>
                    <td>{s.routeTable.rows.length.toLocaleString()} <span className={s.routeTable.skewed.length ? 'warn-text' : 'muted'}>({s.routeTable.skewed.length} skewed)</span></td>
                    <td>{s.events.length.toLocaleString()}</td>
                    <td className="row-actions">
                      {viewing ? (
                        <button type="button" className="btn" onClick={view.leave}>Return to live</button>
                      ) : (
                        <button type="button" className="btn" onClick={() => view.open(e)} aria-label={`View ${e.label} offline`}>View offline</button>
                      )}
                      <button type="button" className="btn" onClick={() => (viewing ? (view.leave(), view.library.remove(e.id)) : view.library.remove(e.id))} aria-label={`Remove ${e.label}`}>Remove</button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function CompareCard({ state }: { state: LibraryState }) {
  const view = useRequiredView();
  const { compare, entries } = state;
  const options = (
    <>
      {entries.map((e) => (
        <option key={e.id} value={e.id}>{e.label} · {formatDateTime(Date.parse(e.snapshot.takenAt))}</option>
      ))}
      <option value={LIVE_NOW}>Current live state (taken now)</option>
    </>
  );
  const canCompare = compare.beforeId !== '' && compare.afterId !== '' && compare.status !== 'running';

  const run = async (e: FormEvent) => {
    e.preventDefault();
    if (!canCompare) return;
    view.library.setCompare({ status: 'running', error: undefined });
    try {
      let liveNow: LibraryEntry | undefined;
      const resolve = async (id: string): Promise<LibraryEntry> => {
        if (id !== LIVE_NOW) {
          const entry = view.library.get(id);
          if (!entry) throw new Error('that snapshot was removed');
          return entry;
        }
        if (!liveNow) {
          const snapshot: RoutingSnapshot = await view.live.takeSnapshot();
          liveNow = view.library.add(snapshot, liveLabel(Date.parse(snapshot.takenAt)), 'live');
        }
        return liveNow;
      };
      const before = await resolve(compare.beforeId);
      const after = await resolve(compare.afterId);
      const diff = await view.live.compareSnapshots({ before: before.snapshot, after: after.snapshot });
      view.library.setCompare({ status: 'done', result: { before, after, diff } });
    } catch (err) {
      view.library.setCompare({ status: 'error', error: err instanceof Error ? err.message : String(err) });
    }
  };

  return (
    <div className="card">
      <h3>Compare two snapshots</h3>
      <form className="toolbar compare-form" onSubmit={(e) => void run(e)} aria-label="Compare two snapshots">
        <label className="field">
          <span>Before</span>
          <select value={compare.beforeId} onChange={(e) => view.library.setCompare({ beforeId: e.target.value })}>
            {compare.beforeId === '' && <option value="" disabled>choose a snapshot</option>}
            {options}
          </select>
        </label>
        <span className="muted" aria-hidden="true">→</span>
        <label className="field">
          <span>After</span>
          <select value={compare.afterId} onChange={(e) => view.library.setCompare({ afterId: e.target.value })}>
            {options}
          </select>
        </label>
        <button type="submit" className="btn btn-primary" disabled={!canCompare}>
          {compare.status === 'running' ? 'Comparing…' : 'Compare'}
        </button>
      </form>
      {entries.length === 0 && compare.status === 'idle' && (
        <p className="muted small">Keep the live state (or open a file) before a rollout step, then compare it with the current live state after the step.</p>
      )}
      {compare.status === 'running' && <Loading what="the comparison" />}
      {compare.status === 'error' && <ErrorState error={compare.error} />}
      {compare.status === 'done' && compare.result && <SnapshotDiffView before={compare.result.before} after={compare.result.after} diff={compare.result.diff} />}
    </div>
  );
}

/** The snapshot being viewed: what it is, its servers at capture time, and its counters. */
function OfflineSummary({ entry }: { entry: LibraryEntry }) {
  const s = entry.snapshot;
  return (
    <div className="card offline-summary">
      <h3>Viewing {entry.label}</h3>
      <dl className="facts wide">
        <div><dt>taken at</dt><dd className="mono" title={s.takenAt}>{formatDateTime(Date.parse(s.takenAt))}</dd></div>
        <div><dt>from</dt><dd>{describeSource(s)}</dd></div>
        <div><dt>made by</dt><dd className="mono">Peerscope {s.source.peerscopeVersion} · {s.apiVersion}</dd></div>
        <div><dt>port settings</dt><dd>policy <span className="mono">{s.settings.policy}</span>, discovery <span className="mono">{s.settings.discoveryMode}</span></dd></div>
        <div><dt>route table</dt><dd>{s.routeTable.rows.length.toLocaleString()} GVRs, {s.routeTable.skewed.length} skewed</dd></div>
        <div><dt>recorded</dt><dd>{s.events.length.toLocaleString()} recent requests, counters of {s.counters.reduce((n, c) => n + c.count, 0).toLocaleString()}</dd></div>
      </dl>
      <ul className="server-strip snapshot-servers" aria-label="Apiservers at capture time">
        {s.servers.map((srv) => (
          <li key={srv.name} className="server-chip">
            <span className="server-name">{srv.name}</span>
            <span className="release" title={srv.gitVersion}>{shortRelease(srv.gitVersion)}</span>
            <HealthBadge health={srv.health} />
          </li>
        ))}
      </ul>
      <CountersTable snapshot={s} />
    </div>
  );
}

const COUNTER_COLUMNS = ['local', 'rerouted', 'notfound', 'unavailable'] as const;
const COUNTERS_SHOWN = 10;

/** Requests per GVR by outcome, busiest first. */
export function counterRows(s: RoutingSnapshot): { gvr: string; total: number; local: number; rerouted: number; notfound: number; unavailable: number; other: number }[] {
  const byGvr = new Map<string, { gvr: string; total: number; local: number; rerouted: number; notfound: number; unavailable: number; other: number }>();
  for (const c of s.counters) {
    let row = byGvr.get(c.gvr);
    if (!row) byGvr.set(c.gvr, (row = { gvr: c.gvr, total: 0, local: 0, rerouted: 0, notfound: 0, unavailable: 0, other: 0 }));
    row.total += c.count;
    if ((COUNTER_COLUMNS as readonly string[]).includes(c.outcome)) row[c.outcome as (typeof COUNTER_COLUMNS)[number]] += c.count;
    else row.other += c.count;
  }
  return [...byGvr.values()].sort((a, b) => b.total - a.total || a.gvr.localeCompare(b.gvr));
}

function CountersTable({ snapshot }: { snapshot: RoutingSnapshot }) {
  const [all, setAll] = useState(false);
  const rows = counterRows(snapshot);
  if (rows.length === 0) return <Empty>No request had gone through the port when this snapshot was taken.</Empty>;
  const shown = all ? rows : rows.slice(0, COUNTERS_SHOWN);
  return (
    <div className="table-scroll">
      <table className="simple-table counters">
        <caption>Requests by GVR and outcome at capture time</caption>
        <thead>
          <tr>
            <th scope="col">GVR</th>
            <th scope="col" className="num">requests</th>
            {COUNTER_COLUMNS.map((o) => <th scope="col" key={o} className="num">{outcomeStyle[o].label}</th>)}
            <th scope="col" className="num">other</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr key={r.gvr}>
              <th scope="row" className="mono">{r.gvr ? gvrKeyLabel(r.gvr) : '(discovery and non-resource paths)'}</th>
              <td className="num mono">{r.total.toLocaleString()}</td>
              {COUNTER_COLUMNS.map((o) => <td key={o} className={`num mono${r[o] && o !== 'local' ? ` t-${o}` : ''}`}>{r[o] ? r[o].toLocaleString() : '·'}</td>)}
              <td className="num mono">{r.other ? r.other.toLocaleString() : '·'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > COUNTERS_SHOWN && (
        <button type="button" className="link" onClick={() => setAll(!all)}>
          {all ? `Show the busiest ${COUNTERS_SHOWN}` : `Show all ${rows.length.toLocaleString()} GVRs`}
        </button>
      )}
    </div>
  );
}
