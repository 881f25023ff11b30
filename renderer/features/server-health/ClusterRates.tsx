// What one apiserver answered per minute, from its audit log (the cluster source): requests, errors
// (5xx) and false 404s of the last full minute — every client of the cluster, not only the port's.
import type { ClusterMinute } from '../../../proxy-core/contract/index.js';
import { formatClock } from '../../shared/ui/format.js';

const MINUTE_MS = 60_000;

export interface MinuteRates {
  /** Start of the minute the rates are of. */
  readonly from: number;
  /** The current minute, still filling: no full minute has been read yet. */
  readonly partial: boolean;
  readonly requests: number;
  readonly errors: number;
  readonly false404s: number;
}

/**
 * The last full minute's counts (zero when the server answered nothing in it); the current minute's so
 * far when no whole minute has been read yet.
 */
export function lastMinuteRates(minutes: readonly ClusterMinute[], now: number): MinuteRates | undefined {
  if (minutes.length === 0) return undefined;
  const current = now - (now % MINUTE_MS);
  const previous = current - MINUTE_MS;
  // The previous minute is whole only if the log was read from before it began.
  if (minutes[0]!.at >= previous) {
    const m = minutes.find((b) => b.at === current);
    return { from: current, partial: true, requests: m?.requests ?? 0, errors: m?.errors ?? 0, false404s: m?.false404s ?? 0 };
  }
  const m = minutes.find((b) => b.at === previous);
  return { from: previous, partial: false, requests: m?.requests ?? 0, errors: m?.errors ?? 0, false404s: m?.false404s ?? 0 };
}

export function ClusterRates({ server, minutes, now }: { server: string; minutes: readonly ClusterMinute[]; now: number }) {
  const rates = lastMinuteRates(minutes, now);
  return (
    <section className="cluster-rates" aria-label={`What ${server} answered, from its audit log`}>
      <h4>
        From its audit log
        {rates && (
          <span className="muted">
            {' '}
            · {rates.partial ? `so far this minute (from ${formatClock(rates.from)})` : `the minute from ${formatClock(rates.from)}`}
          </span>
        )}
      </h4>
      {rates ? (
        <dl className="facts">
          <div>
            <dt>requests / min</dt>
            <dd className="mono">{rates.requests.toLocaleString()}</dd>
          </div>
          <div>
            <dt>errors (5xx) / min</dt>
            <dd className={`mono${rates.errors > 0 ? ' error-text' : ''}`}>{rates.errors.toLocaleString()}</dd>
          </div>
          <div>
            <dt>false 404s / min</dt>
            <dd className={`mono${rates.false404s > 0 ? ' t-false-404' : ''}`}>{rates.false404s.toLocaleString()}</dd>
          </div>
        </dl>
      ) : (
        <p className="muted small">No request in its audit log yet.</p>
      )}
    </section>
  );
}
