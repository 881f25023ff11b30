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
  /** Each action as it is taken, in one line (for the recording): `server` the server acted on, '' for the whole rollout. */
  readonly onStep?: (server: string, step: string) => void;
}

/** A rollout event as one line, or undefined for an event that is no action (a server's own state). */
export function stepOf(e: SimEvent): { server: string; step: string } | undefined {
  if (e.type === 'rollout-done') return { server: '', step: `rollout done: every server on ${e.release}` };
  if (e.type !== 'rollout-step') return undefined;
  const step =
    e.phase === 'draining' ? `drain (${e.from} → ${e.to})` : e.phase === 'down' ? `stop and upgrade to ${e.to}` : `restart on ${e.to}`;
  return { server: e.server, step };
}

export function createSimController(options: SimControllerOptions): SimController {
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const l of listeners) l();
  };
  const step = (server: string, text: string) => options.onStep?.(server, text);
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
    const taken = stepOf(e);
    if (taken) step(taken.server, taken.step);
    changed();
  };

  return {
    status,
    startRollout() {
      if (controller.phase === 'paused' || (controller.phase === 'running' && running)) {
        if (controller.phase === 'paused') step('', 'rollout resumed');
        controller.resume();
      } else if (controller.phase === 'idle' || controller.phase === 'done' || controller.phase === 'aborted') {
        // A finished rollout started again does nothing per server already at the target release.
        controller = new RolloutController();
        abort = new AbortController();
        rolloutError = undefined;
        step('', `rollout started: ${options.from} → ${options.to.release}`);
        const signal = abort.signal;
        running = runRollout(options.servers, options.to, { ...options.rollout, onEvent, signal, controller })
          .catch((err: Error) => {
            if (signal.aborted) return;
            rolloutError = err.message;
            step('', `rollout failed: ${err.message}`);
            options.onRolloutError?.(err);
          })
          .finally(changed);
      }
      changed();
      return status();
    },
    pauseRollout() {
      if (controller.phase === 'running') step('', 'rollout paused');
      controller.pause();
      changed();
      return status();
    },
    setTrafficRate(rps) {
      if (!options.traffic) throw new PeerscopeError('PEERSCOPE_ERR_NO_TRAFFIC', 'this control plane has no traffic generator');
      options.traffic.setRate(rps);
      if (trafficRps !== rps) step('', `traffic set to ${rps} requests/s`);
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
