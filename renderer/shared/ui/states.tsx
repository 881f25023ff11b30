// Loading, empty and error states, and the health badge: the same everywhere.
import type { ReactNode } from 'react';
import type { HealthState } from '../../../proxy-core/contract/index.js';
import { adviceFor, errorMessage } from './call-errors.js';
import { healthLabel } from './format.js';

export function Loading({ what }: { what: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </div>
  );
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div className="state state-error" role="alert">
      <strong>Could not load.</strong> {errorMessage(error)}
      {adviceFor(error) && <span className="muted"> {adviceFor(error)}</span>}
      {retry && (
        <button type="button" className="btn" onClick={retry}>
          Retry
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state state-empty">{children}</div>;
}

export function HealthBadge({ health }: { health: HealthState }) {
  return (
    <span className={`badge health-${health}`}>
      <span className="dot" aria-hidden="true" />
      {healthLabel[health]}
    </span>
  );
}
