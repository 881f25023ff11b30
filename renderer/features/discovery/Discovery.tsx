// Discovery: what `/api` + `/apis` on the local port answer. Peer-aggregated merges every server's
// own document (so clients of an old server see the new GVRs, which the proxy then reroutes);
// nopeer answers with the handling server's own. The diff shows what the merge adds per server, and
// where the merged order of a group's versions differs from the server's own (rule P9).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import type { DiscoveryMode, DiscoveryViews, VersionOrderDifference } from '../../../proxy-core/contract/index.js';
import { queryKeys, useCoreClient } from '../../shared/client-context.js';
import { useServerNames } from '../../shared/server-names.js';
import { useShownSession } from '../../shared/shown-recording.js';
import { gvrKeyLabel, shortRelease } from '../../shared/ui/format.js';
import { Empty, ErrorState, Loading } from '../../shared/ui/states.js';
import { useView } from '../../shared/view-mode.js';

const MODES: { mode: DiscoveryMode; label: string; help: string }[] = [
  {
    mode: 'peer-aggregated',
    label: 'Peer-aggregated',
    help: 'one document merged across every apiserver (what kube-apiserver does with the Mixed Version Proxy on)',
  },
  { mode: 'nopeer', label: 'No peer', help: "the handling server's own document, as with profile=nopeer" },
];

export function Discovery() {
  const session = useShownSession();
  if (!session) return <Loading what="discovery" />;
  if (session.recording) return <DiscoveryOfRecording name={session.recording.name} mode={session.discoveryMode} />;
  return <LiveDiscovery />;
}

/**
 * A recording opened from a file keeps each server's own discovery (the GVR matrix shows it at any
 * moment) and the mode the port was in, not the merged document the port answered: said so, with the mode.
 */
function DiscoveryOfRecording({ name, mode }: { name: string; mode: DiscoveryMode }) {
  const shown = MODES.find((m) => m.mode === mode);
  return (
    <section className="panel discovery" aria-labelledby="discovery-title">
      <DiscoveryHeader />
      <p className="recorded-mode">
        Discovery on the local port as recorded: <strong>{shown?.label ?? mode}</strong>
        {shown && <span className="muted"> ({shown.help})</span>}
      </p>
      <Empty>
        {name} keeps each server’s own discovery — the GVR matrix shows it at any moment of the recording — but not the merged document the
        port answered, so the comparison of the two needs a live cluster.
      </Empty>
    </section>
  );
}

function LiveDiscovery() {
  const client = useCoreClient();
  const queryClient = useQueryClient();
  const views = useQuery({ queryKey: queryKeys.discoveryViews, queryFn: () => client.getDiscoveryViews() });
  // The choice shows at once: a controlled radio is put back to its rendered state right after the
  // click, before the mutation's pending state reaches this component (react-query notifies later).
  const [chosen, setChosen] = useState<DiscoveryMode | null>(null);
  const setMode = useMutation({
    mutationFn: (mode: DiscoveryMode) => client.setDiscoveryMode({ mode }),
    // A views read already in flight (pushed events start them) would land after this change with the
    // old mode and flip the toggle back; cancel it, the refetch on success reads the new state.
    onMutate: () => queryClient.cancelQueries({ queryKey: queryKeys.discoveryViews }),
    onSuccess: (settings) => {
      // Show the new mode at once; the refetch below brings the rest.
      queryClient.setQueryData<DiscoveryViews>(queryKeys.discoveryViews, (old) => (old ? { ...old, mode: settings.discoveryMode } : old));
      void queryClient.invalidateQueries({ queryKey: queryKeys.discoveryViews });
      void queryClient.invalidateQueries({ queryKey: queryKeys.overview });
    },
  });
  const mode = chosen ?? (setMode.isPending ? setMode.variables : views.data?.mode);

  return (
    <section className="panel discovery" aria-labelledby="discovery-title">
      <DiscoveryHeader />
      <fieldset className="segmented" disabled={!views.data}>
        <legend>Discovery on the local port</legend>
        {MODES.map((m) => (
          <label key={m.mode} className={`segment${mode === m.mode ? ' selected' : ''}`}>
            <input
              type="radio"
              name="discovery-mode"
              value={m.mode}
              checked={mode === m.mode}
              onChange={() => {
                setChosen(m.mode);
                setMode.mutate(m.mode, { onSettled: () => setChosen(null) });
              }}
            />
            <span className="segment-label">{m.label}</span>
            <span className="segment-help">{m.help}</span>
          </label>
        ))}
      </fieldset>
      {setMode.error && (
        <p className="error-text" role="alert">
          {setMode.error.message}
        </p>
      )}
      {views.isPending ? (
        <Loading what="discovery" />
      ) : views.isError ? (
        <ErrorState error={views.error} retry={() => void views.refetch()} />
      ) : (
        <DiscoveryDiff views={views.data} />
      )}
    </section>
  );
}

function DiscoveryDiff({ views }: { views: DiscoveryViews }) {
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const nameOf = useServerNames();
  const server = views.servers.find((s) => s.name === selected) ?? views.servers.find((s) => s.onlyInMerged.length > 0) ?? views.servers[0];
  const grouped = useMemo(() => groupKeys(server?.onlyInMerged ?? []), [server]);
  if (!server || views.merged.gvrs.length === 0) return <Empty>No server's discovery has been read yet.</Empty>;
  return (
    <div className="discovery-grid">
      <div className="card">
        <h3>Merged vs each server's own</h3>
        <table className="simple-table">
          <caption className="muted small">
            Merged document as {views.merged.handling ? nameOf(views.merged.handling) : '—'} answers it: {views.merged.gvrs.length} GVRs
          </caption>
          <thead>
            <tr>
              <th scope="col">apiserver</th>
              <th scope="col">release</th>
              <th scope="col">own GVRs</th>
              <th scope="col">added by merge</th>
              <th scope="col">own only</th>
              <th scope="col" title="groups whose merged version list does not start with the server's own">
                version order
              </th>
            </tr>
          </thead>
          <tbody>
            {views.servers.map((s) => (
              <tr key={s.name} className={s.name === server.name ? 'selected' : ''}>
                <th scope="row">
                  <button type="button" className="link" aria-pressed={s.name === server.name} onClick={() => setSelected(s.name)}>
                    {nameOf(s.name)}
                  </button>
                </th>
                <td className="mono">
                  {shortRelease(s.gitVersion)}
                  {s.discovery === 'stale' && <span className="badge warn">stale</span>}
                </td>
                <td className="mono">{s.gvrs.length}</td>
                <td className={`mono${s.onlyInMerged.length ? ' t-rerouted' : ''}`}>+{s.onlyInMerged.length}</td>
                <td className="mono">{s.onlyInOwn.length ? `−${s.onlyInOwn.length}` : '0'}</td>
                <td className="mono">
                  {s.versionOrder === undefined ? '—' : s.versionOrder.length ? `${s.versionOrder.length} differ` : 'same'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <VersionOrderNote order={views.merged.versionOrder} />
      </div>
      <div className="card">
        <h3>
          Only in the merged document, not in {nameOf(server.name)}’s own <span className="count">{server.onlyInMerged.length}</span>
        </h3>
        <p className="muted small diff-help">
          A client handled by {nameOf(server.name)} sees these only with peer-aggregated discovery; its requests for them are rerouted to a
          peer.
        </p>
        {server.onlyInMerged.length === 0 ? (
          <Empty>{nameOf(server.name)} serves every GVR of the merged document.</Empty>
        ) : (
          <ul className="gvr-diff" aria-label={`GVRs added by the merge for ${nameOf(server.name)}`}>
            {grouped.map(([group, keys]) => (
              <li key={group}>
                <span className="diff-group">{group}</span>
                <ul>
                  {keys.map((k) => (
                    <li key={k} className="mono diff-add">
                      + {gvrKeyLabel(k)}
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        )}
        {server.versionOrder && server.versionOrder.length > 0 && (
          <VersionOrderDiff server={nameOf(server.name)} differences={server.versionOrder} />
        )}
        {server.onlyInOwn.length > 0 && (
          <>
            <h4>Only in {nameOf(server.name)}’s own</h4>
            <ul className="gvr-diff">
              {server.onlyInOwn.map((k) => (
                <li key={k} className="mono diff-del">
                  − {gvrKeyLabel(k)}
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
    </div>
  );
}

/** Which order the port lists each group's versions in (P9), in words. */
function VersionOrderNote({ order }: { order: DiscoveryViews['merged']['versionOrder'] }) {
  if (!order) return null;
  return (
    <p className="muted small version-order-note" aria-label="Version order of the merged documents">
      {order === 'priority'
        ? "Each group's versions in the merged /apis (and legacy /apis) are in Kubernetes' version priority — GA, then beta, then alpha, newest first — so a client picks the newest version any server serves."
        : "Each group's versions in the merged /apis are in the order kube-apiserver's own peer-aggregated discovery gives them (--faithful): where an older server lists a version the newer ones dropped, a client may pick that version."}
    </p>
  );
}

/** The groups whose merged version list does not start with the server's own: a client may pick another version there. */
function VersionOrderDiff({ server, differences }: { server: string; differences: readonly VersionOrderDifference[] }) {
  return (
    <>
      <h4>Version order differs from {server}’s own</h4>
      <p className="muted small diff-help">
        A client that takes the first version serving a resource (kubectl, client-go's REST mapper) may pick another version through the
        port than straight to {server}.
      </p>
      <ul className="gvr-diff" aria-label={`Groups whose version order differs from ${server}'s own`}>
        {differences.map((d) => (
          <li key={d.group} className="mono">
            {d.group || 'core'}: own {d.own.join(', ')} → merged {d.merged.join(', ')}
          </li>
        ))}
      </ul>
    </>
  );
}

function groupKeys(keys: readonly string[]): [string, string[]][] {
  const groups = new Map<string, string[]>();
  for (const k of keys) {
    const group = k.split('/')[0] || 'core';
    const list = groups.get(group) ?? [];
    list.push(k);
    groups.set(group, list);
  }
  return [...groups.entries()];
}

function DiscoveryHeader({ offline = false }: { offline?: boolean }) {
  return (
    <header className="panel-head">
      <div>
        <h2 id="discovery-title">{offline ? 'Discovery at capture time' : 'Discovery'}</h2>
        <p className="muted">
          {offline
            ? 'What GET /api and /apis answered on the local port when the snapshot was taken.'
            : 'What GET /api and /apis answer on the local port.'}
        </p>
      </div>
    </header>
  );
}

/**
 * A snapshot offline: the merged document and each server's own as they were at capture time, and the
 * mode the port was in (read-only). Snapshots of earlier versions did not record the merged document.
 */
export function DiscoveryOffline() {
  const view = useView();
  const client = useCoreClient();
  const recorded = view?.offline?.snapshot.mergedDiscovery !== undefined;
  const views = useQuery({
    queryKey: [...queryKeys.discoveryViews, 'recorded'],
    queryFn: () => client.getDiscoveryViews(),
    enabled: recorded,
  });
  return (
    <section className="panel discovery" aria-labelledby="discovery-title">
      <DiscoveryHeader offline />
      {!recorded ? (
        <Empty>
          <p>
            This snapshot was taken by an earlier Peerscope, which did not record the merged discovery document: the comparison needs the
            live cluster. The snapshot has each server’s own GVRs — see the GVR matrix — and the mode the port was in (shown at the top).
          </p>
          {view && (
            <button type="button" className="btn btn-primary" onClick={view.leave}>
              Return to live
            </button>
          )}
        </Empty>
      ) : views.isPending ? (
        <Loading what="recorded discovery" />
      ) : views.isError ? (
        <ErrorState error={views.error} retry={() => void views.refetch()} />
      ) : (
        <RecordedDiscovery views={views.data} />
      )}
    </section>
  );
}

function RecordedDiscovery({ views }: { views: DiscoveryViews }) {
  const mode = MODES.find((m) => m.mode === views.mode);
  return (
    <>
      <p className="recorded-mode">
        Discovery on the local port at capture time: <strong>{mode?.label ?? views.mode}</strong>
        {mode && <span className="muted"> ({mode.help})</span>}
      </p>
      <DiscoveryDiff views={views} />
    </>
  );
}
