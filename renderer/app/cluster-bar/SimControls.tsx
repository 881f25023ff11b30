// The simulated rollout: its phase, start / pause / resume, and the traffic generator's rate.
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { Overview } from '../../../proxy-core/contract/index.js';
import { useCoreClient } from '../../shared/client-context.js';

export function SimControls({ overview }: { overview: Overview }) {
  const client = useCoreClient();
  const sim = overview.sim!;
  const start = useMutation({ mutationFn: () => client.startRollout() });
  const pause = useMutation({ mutationFn: () => client.pauseRollout() });
  const rate = useMutation({ mutationFn: (rps: number) => client.setTrafficRate({ rps }) });
  const [rps, setRps] = useState(String(sim.trafficRps ?? 0));
  useEffect(() => setRps(String(sim.trafficRps ?? 0)), [sim.trafficRps]);
  const phase = sim.rollout.phase;
  const step = sim.rollout.current ? ` · ${sim.rollout.current.server} ${sim.rollout.current.phase}` : '';
  return (
    <div className="sim-controls" role="group" aria-label="Simulated rollout">
      <span className={`rollout-phase phase-${phase}`} role="status">
        rollout {sim.rollout.from} → {sim.rollout.to}: {phase}
        {step}
      </span>
      {phase === 'running' ? (
        <button type="button" className="btn" onClick={() => pause.mutate()}>
          Pause rollout
        </button>
      ) : (
        <button type="button" className="btn btn-primary" onClick={() => start.mutate()} disabled={phase === 'done'}>
          {phase === 'paused' ? 'Resume rollout' : 'Start rollout'}
        </button>
      )}
      {sim.trafficRps !== undefined && (
        <form
          className="field inline"
          onSubmit={(e) => {
            e.preventDefault();
            const n = Number(rps);
            if (Number.isFinite(n) && n >= 0) rate.mutate(n);
          }}
        >
          <label htmlFor="traffic-rps">Traffic (req/s)</label>
          <input id="traffic-rps" type="number" min={0} max={10000} value={rps} onChange={(e) => setRps(e.target.value)} />
          <button type="submit" className="btn">
            Set
          </button>
        </form>
      )}
    </div>
  );
}
