// Why a snapshot file could not be opened: the file, the line and column or field at fault, and a hint.
import type { SnapshotReadError } from '../../../proxy-core/contract/index.js';
import type { ImportFailure } from '../../shared/snapshot-library.js';

const REASON_HINT: Record<SnapshotReadError['reason'], string> = {
  'too-large': 'It is far larger than any snapshot: it is not one, or it was damaged.',
  syntax: 'The file is not valid JSON: it may have been cut short or edited by hand.',
  'not-a-snapshot': 'This is not a Peerscope routing snapshot.',
  'unknown-version': 'Its apiVersion is not a Peerscope snapshot format.',
  'newer-version': 'It was made by a newer Peerscope: update Peerscope to open it.',
  invalid: 'A field does not hold what the snapshot format requires (docs/snapshot.schema.json).',
};

export function ImportError({ failure }: { failure: ImportFailure }) {
  const e = failure.error;
  return (
    <div className="import-error" role="alert">
      <p>
        <strong>{failure.file}</strong> could not be opened{e ? `: ${e.detail}` : '.'}
      </p>
      {e ? (
        <>
          <dl className="facts">
            <div>
              <dt>file</dt>
              <dd className="mono">{e.file}</dd>
            </div>
            {e.line !== undefined && (
              <div>
                <dt>line</dt>
                <dd className="mono">{`line ${e.line}, column ${e.column ?? 1}`}</dd>
              </div>
            )}
            {e.pointer !== undefined && (
              <div>
                <dt>field</dt>
                <dd className="mono">{e.pointer || '/'}</dd>
              </div>
            )}
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
