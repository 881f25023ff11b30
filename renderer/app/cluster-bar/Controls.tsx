// The handling policy, the snapshot export and, with a simulated cluster, the rollout controls. Shown
// read-only (a snapshot, a recorded moment or window, a recording opened from a file), the policy is
// what was recorded and cannot be changed, and nothing else that would change a cluster is offered.
import { useMutation } from '@tanstack/react-query';
import { shownName, type Overview } from '../../../proxy-core/contract/index.js';
import { downloadSnapshot } from '../../features/snapshots/describe.js';
import { useCoreClient } from '../../shared/client-context.js';
import { useMoment, useOffline } from '../../shared/view-mode.js';
import { SimControls } from './SimControls.js';

export function Controls({ overview }: { overview: Overview }) {
  const client = useCoreClient();
  // Offline, the controls show what the snapshot recorded; nothing that would change a cluster is offered.
  const offline = useOffline();
  // At a recorded moment likewise: the screens read the recording, the cluster is not theirs to change.
  const moment = useMoment();
  // And a recording opened from a file: its session refuses every change (PEERSCOPE_ERR_READ_ONLY).
  const recording = overview.recording;
  const readOnly = offline !== null || moment !== null || recording !== undefined;
  const setPolicy = useMutation({ mutationFn: (p: string) => client.setPolicy({ policy: p }) });
  const snapshot = useMutation({ mutationFn: () => client.takeSnapshot(), onSuccess: downloadSnapshot });
  return (
    <div className="controls">
      <label className="field">
        <span>Handling policy</span>
        <select
          value={setPolicy.isPending ? setPolicy.variables : overview.policy}
          onChange={(e) => setPolicy.mutate(e.target.value)}
          disabled={readOnly}
          title={
            offline
              ? 'The policy the port used when the snapshot was taken'
              : recording
                ? `The policy recorded in ${recording.name}: a recording is read-only, back to live to change the policy`
                : moment
                  ? 'The policy recorded then: back to live to change it'
                  : undefined
          }
        >
          <option value="round-robin">round-robin</option>
          <option value="random">random</option>
          {overview.servers.map((s) => (
            <option key={s.name} value={`pin:${s.name}`}>
              pin to {shownName(s)}
            </option>
          ))}
        </select>
      </label>
      {overview.sim && !readOnly && <SimControls overview={overview} />}
      {!readOnly && (
        <button type="button" className="btn" onClick={() => snapshot.mutate()} disabled={snapshot.isPending}>
          Export snapshot
        </button>
      )}
      {(setPolicy.error || snapshot.error) && (
        <span className="error-text" role="alert">
          {(setPolicy.error ?? snapshot.error)?.message}
        </span>
      )}
    </div>
  );
}
