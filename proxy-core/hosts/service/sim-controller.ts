// Rollout and traffic controls of a simulated control plane, as the UI drives them: start (or resume)
// the rollout, pause it between phases, change the traffic rate. Hosts that run no simulator pass none.
import { PeerscopeError } from '../../contract/errors.js';
import type { SimStatus } from '../../contract/client.js';
import type { ReleaseCatalog } from '../../engine/releases/model.js';
import { RolloutController, runRollout, type RolloutOptions } from '../../sim/index.js';
import type { TrafficHandle } from '../../sim/index.js';
import type { SimEvent, SimServer } from '../../sim/index.js';

export interface SimController {
  status(): SimStatus;
  startRollout(): SimStatus;
  pauseRollout(): SimStatus;
  setTrafficRate(rps: number): SimStatus;
  /** Called whenever status() may have changed. */
  onChange(listener: () => void): () => void;
  /** Aborts a running rollout and waits for it (a server that is down comes back first). */
  close(): Promise<void>;
}

export interface SimControllerOptions {
  readonly servers: readonly SimServer[];
  readonly from: string;
  readonly to: ReleaseCatalog;
  readonly traffic?: TrafficHandle;
  readonly trafficRps?: number;
  readonly rollout?: Omit<RolloutOptions, 'signal' | 'controller'>;
  /** A rollout that failed (not one aborted by close()). */
  readonly onRolloutError?: (err: Error) => void;
}

export function createSimController(options: SimControllerOptions): SimController {
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const l of listeners) l();
  };
  let controller = new RolloutController();
  let abort = new AbortController();
  let running: Promise<void> | undefined;
  let trafficRps = options.traffic ? (options.trafficRps ?? 0) : undefined;
  let rolloutError: string | undefined;

  const status = (): SimStatus => ({
    rollout: {
      phase: controller.phase,
      from: options.from,
      to: options.to.release,
      ...(controller.current ? { current: { ...controller.current } } : {}),
      upgraded: [...controller.upgraded],
      ...(rolloutError ? { error: rolloutError } : {}),
    },
    ...(trafficRps !== undefined ? { trafficRps } : {}),
  });

  const onEvent = (e: SimEvent) => {
    options.rollout?.onEvent?.(e);
    changed();
  };

  return {
    status,
    startRollout() {
      if (controller.phase === 'paused' || (controller.phase === 'running' && running)) {
        controller.resume();
      } else if (controller.phase === 'idle' || controller.phase === 'done' || controller.phase === 'aborted') {
        // A finished rollout started again does nothing per server already at the target release.
        controller = new RolloutController();
        abort = new AbortController();
        rolloutError = undefined;
        const signal = abort.signal;
        running = runRollout(options.servers, options.to, { ...options.rollout, onEvent, signal, controller })
          .catch((err: Error) => {
            if (signal.aborted) return;
            rolloutError = err.message;
            options.onRolloutError?.(err);
          })
          .finally(changed);
      }
      changed();
      return status();
    },
    pauseRollout() {
      controller.pause();
      changed();
      return status();
    },
    setTrafficRate(rps) {
      if (!options.traffic) throw new PeerscopeError('PEERSCOPE_ERR_NO_TRAFFIC', 'this control plane has no traffic generator');
      options.traffic.setRate(rps);
      trafficRps = rps;
      changed();
      return status();
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      abort.abort();
      controller.resume();
      await running;
    },
  };
}
