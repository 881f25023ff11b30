// The recordings folder: where it is, what it holds against the cap, the cap itself (settable, kept
// in the folder's settings file), and what the cap removed and why.
import { useEffect, useState, type FormEvent } from 'react';
import type { CoreClient, Recordings } from '../../../proxy-core/contract/index.js';
import { formatDateTime } from '../../shared/ui/format.js';
import { formatBytes } from './use-recordings.js';

const GIB = 1024 ** 3;
/** The cap in GiB as typed: "5", "0.5", "0.001". */
const gibOf = (bytes: number) => String(+(bytes / GIB).toPrecision(3));

export function RetentionCard({
  folder,
  client,
  act,
  busy,
}: {
  folder: Recordings;
  client: CoreClient;
  act: (what: string, action: () => Promise<Recordings>) => Promise<boolean>;
  busy: string | null;
}) {
  const [days, setDays] = useState(String(folder.retention.maxAgeDays));
  const [gib, setGib] = useState(gibOf(folder.retention.maxBytes));
  useEffect(() => {
    setDays(String(folder.retention.maxAgeDays));
    setGib(gibOf(folder.retention.maxBytes));
  }, [folder.retention.maxAgeDays, folder.retention.maxBytes]);
  const share = Math.min(1, folder.usedBytes / folder.retention.maxBytes);
  const valid = Number(days) > 0 && Number(gib) > 0;

  const save = (e: FormEvent) => {
    e.preventDefault();
    if (!valid) return;
    void act('retention', () => client.setRetention({ maxAgeDays: Number(days), maxBytes: Math.round(Number(gib) * GIB) }));
  };

  return (
    <div className="card retention-card">
      <h3>Recordings folder</h3>
      <p className="mono small folder-path" title={folder.folder}>
        {folder.folder}
      </p>
      <div className="usage" aria-label="Space used by recordings">
        <div className="usage-bar" aria-hidden="true">
          <div className="usage-fill" style={{ width: folder.usedBytes > 0 ? `max(2px, ${(share * 100).toFixed(1)}%)` : 0 }} />
        </div>
        <span>
          {formatBytes(folder.usedBytes)} used of {formatBytes(folder.retention.maxBytes)} · kept {folder.retention.maxAgeDays} days
        </span>
      </div>
      {folder.usedBytes > folder.retention.maxBytes && (
        <p className="muted small">Over the cap: what is left is the recording being written or the one shown, which are kept.</p>
      )}
      {folder.settingsProblem && (
        <p className="warn-text" role="alert">
          {folder.settingsProblem}
        </p>
      )}
      <form className="retention-form" onSubmit={save}>
        <label className="field inline">
          Keep for
          <input type="number" min="0.1" step="any" value={days} onChange={(e) => setDays(e.target.value)} aria-label="Days to keep" />
          days
        </label>
        <label className="field inline">
          at most
          <input type="number" min="0.0001" step="any" value={gib} onChange={(e) => setGib(e.target.value)} aria-label="Size cap in GiB" />
          GiB
        </label>
        <button type="submit" className="btn" disabled={!valid || busy !== null}>
          Save cap
        </button>
      </form>
      <p className="muted small">
        Applied when a session starts and every hour; the recording being written and the one shown are never removed.
      </p>
      {folder.removed.length > 0 && (
        <details className="removed">
          <summary>Removed by the cap ({folder.removed.length})</summary>
          <ul>
            {folder.removed.map((r) => (
              <li key={`${r.name}-${r.at}`}>
                <span className="mono">{r.name}</span> ({formatBytes(r.bytes)}) at {formatDateTime(r.at)}: {r.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
