// The rollout driver: upgrades simulated apiservers one at a time, as an operator's automation does —
// drain (readyz fails, open watches end, new connections refused after a grace), down (port closed),
// up again at the new release, and only then the next server. Pausable and abortable.
import type { ReleaseCatalog } from '../engine/releases/index.js';
import type { SimEvent, SimServer } from './types.js';
import { PeerscopeError } from '../contract/errors.js';

export interface RolloutOptions {
  /** How long a server drains before it goes down. */
  readonly drainSeconds?: number;
  /** How long it stays down before it comes back at the new release. */
  readonly downSeconds?: number;
  /** Pause after a server is back, before the next one starts draining. */
  readonly upSettleSeconds?: number;
  readonly signal?: AbortSignal;
  readonly onEvent?: (e: SimEvent) => void;
  readonly controller?: RolloutController;
}

export interface RolloutStatus {
  readonly phase: RolloutPhase;
  readonly current?: { readonly server: string; readonly phase: 'draining' | 'down' | 'up' };
  readonly upgraded: readonly string[];
}

export type RolloutPhase = 'idle' | 'running' | 'paused' | 'done' | 'aborted';

/** Lets a UI pause a rollout between steps and see where it is. */
export class RolloutController {
  private paused = false;
  private resumeWaiters: (() => void)[] = [];
  phase: RolloutPhase = 'idle';
  current: { server: string; phase: 'draining' | 'down' | 'up' } | undefined;
  upgraded: string[] = [];

  status(): RolloutStatus {
    return { phase: this.phase, ...(this.current ? { current: { ...this.current } } : {}), upgraded: [...this.upgraded] };
  }

  pause(): void {
    this.paused = true;
    if (this.phase === 'running') this.phase = 'paused';
  }

  resume(): void {
    this.paused = false;
    if (this.phase === 'paused') this.phase = 'running';
    for (const w of this.resumeWaiters.splice(0)) w();
  }

  /** Waits while paused; a pause takes effect between phases, never in the middle of one. */
  async gate(signal?: AbortSignal): Promise<void> {
    while (this.paused && !signal?.aborted) {
      this.phase = 'paused';
      await new Promise<void>((resolve) => {
        this.resumeWaiters.push(resolve);
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    if (this.phase === 'paused') this.phase = 'running';
  }
}

export class RolloutAborted extends PeerscopeError {
  override readonly name = 'RolloutAborted';
  constructor(message: string) {
    super('PEERSCOPE_ERR_ROLLOUT', message);
  }
}

export async function runRollout(servers: readonly SimServer[], to: ReleaseCatalog, options: RolloutOptions = {}): Promise<void> {
  const ctl = options.controller ?? new RolloutController();
  const emit = (e: SimEvent) => options.onEvent?.(e);
  const wait = (seconds: number) => sleep(seconds * 1000, options.signal);
  ctl.phase = 'running';
  try {
    for (const server of servers) {
      const from = server.info().release;
      if (from === to.release) continue; // already there
      await ctl.gate(options.signal);
      throwIfAborted(options.signal);
      step(ctl, emit, server.name, from, to.release, 'draining');
      await untilAborted(server.drain((options.drainSeconds ?? 10) * 1000), options.signal);
      await ctl.gate(options.signal);
      if (options.signal?.aborted) {
        // Aborted while draining: back into service at the release it had, as an uncordon would.
        await server.stop();
        await server.start();
        step(ctl, emit, server.name, from, from, 'up');
        ctl.current = undefined;
        throw new RolloutAborted('the rollout was aborted');
      }
      step(ctl, emit, server.name, from, to.release, 'down');
      await server.stop();
      server.setRelease(to);
      await wait(options.downSeconds ?? 5);
      // A server must come back even when the rollout is aborted while it is down.
      await server.start();
      step(ctl, emit, server.name, from, to.release, 'up');
      ctl.upgraded.push(server.name);
      ctl.current = undefined;
      await wait(options.upSettleSeconds ?? 0);
    }
    ctl.phase = 'done';
    emit({ type: 'rollout-done', at: Date.now(), release: to.release });
  } catch (err) {
    ctl.phase = 'aborted';
    if (err instanceof RolloutAborted) return;
    throw err;
  }
}

function step(
  ctl: RolloutController,
  emit: (e: SimEvent) => void,
  server: string,
  from: string,
  to: string,
  phase: 'draining' | 'down' | 'up',
): void {
  ctl.current = { server, phase };
  emit({ type: 'rollout-step', at: Date.now(), server, from, to, phase });
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new RolloutAborted('the rollout was aborted');
}

/** Waits for `work`, or only until the signal aborts (the work goes on; the caller checks the signal next). */
function untilAborted(work: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return work;
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Sleeps, but returns early (without throwing) when aborted: callers check the signal next. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
