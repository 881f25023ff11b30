// The snapshot being viewed offline: what it is, its servers at capture time, and its counters.
import { shownName } from '../../../proxy-core/contract/index.js';
import { formatDateTime, shortRelease } from '../../shared/ui/format.js';
import { HealthBadge } from '../../shared/ui/states.js';
import { CountersTable } from './CountersTable.js';
import { describeSource } from './describe.js';
import type { LibraryEntry } from '../../shared/snapshot-library.js';

/** The snapshot being viewed: what it is, its servers at capture time, and its counters. */
export function OfflineSummary({ entry }: { entry: LibraryEntry }) {
  const s = entry.snapshot;
  return (
    <div className="card offline-summary">
      <h3>Viewing {entry.label}</h3>
      <dl className="facts wide">
        <div>
          <dt>taken at</dt>
          <dd className="mono" title={s.takenAt}>
            {formatDateTime(Date.parse(s.takenAt))}
          </dd>
        </div>
        <div>
          <dt>from</dt>
          <dd>{describeSource(s)}</dd>
        </div>
        <div>
          <dt>made by</dt>
          <dd className="mono">
            Peerscope {s.source.peerscopeVersion} · {s.apiVersion}
          </dd>
        </div>
        <div>
          <dt>port settings</dt>
          <dd>
            policy <span className="mono">{s.settings.policy}</span>, discovery <span className="mono">{s.settings.discoveryMode}</span>
          </dd>
        </div>
        <div>
          <dt>route table</dt>
          <dd>
            {s.routeTable.rows.length.toLocaleString()} GVRs, {s.routeTable.skewed.length} skewed
          </dd>
        </div>
        <div>
          <dt>recorded</dt>
          <dd>
            {s.events.length.toLocaleString()} recent requests, counters of {s.counters.reduce((n, c) => n + c.count, 0).toLocaleString()}
          </dd>
        </div>
        {s.recorded && (
          <div>
            <dt>built from the recording</dt>
            <dd>
              <span className="mono">{s.recorded.file}</span>; left out (not recorded): {s.recorded.omitted.map((o) => o.part).join(', ')}
            </dd>
          </div>
        )}
      </dl>
      <ul className="server-strip snapshot-servers" aria-label="Apiservers at capture time">
        {s.servers.map((srv) => (
          <li key={srv.name} className="server-chip">
            <span className="server-name" title={shownName(srv) === srv.name ? undefined : srv.name}>
              {shownName(srv)}
            </span>
            <span className="release" title={srv.gitVersion}>
              {shortRelease(srv.gitVersion)}
            </span>
            <HealthBadge health={srv.health} />
          </li>
        ))}
      </ul>
      <CountersTable snapshot={s} />
    </div>
  );
}
