// The health of each server of a server set, from /readyz?verbose and /version probes: ready,
// not-ready, draining (a failing shutdown check), unreachable, or gone (left the cluster); its
// release; the checks its readiness lists (how its own Mixed Version Proxy is told, own-mvp.ts); and
// a history of samples for the UI's timeline. A server that comes back, or runs another release now,
// may serve other GVRs: `onReturn` is told at once so its discovery is read again.
import type { HealthSample, HealthState, UnreachableCause } from '../../../contract/servers.js';
import { RingBuffer } from '../../telemetry/ring-buffer.js';
import { classifyUnreachable } from '../reachability.js';
import type { ServerReader } from '../server-config.js';

export interface HealthProbeOptions {
  /** Health samples kept per server. */
  readonly historySize?: number;
  /** Health, version or failing checks of a server changed. */
  readonly onChange?: (name: string) => void;
  /** A server came back (or changed release) and is ready: its discovery is to be read again. */
  readonly onReturn?: (name: string) => void;
}

/** What the probes know of one server. */
export interface ServerHealth {
  readonly health: HealthState;
  readonly failingChecks: readonly string[];
  /** Every check the last readable /readyz?verbose listed. */
  readonly readyChecks?: readonly string[];
  readonly gitVersion?: string;
  readonly latencyMs?: number;
  readonly lastProbeAt?: number;
  readonly lastError?: string;
  /** While unreachable: the cause, and the cause in a few words (reachability.ts). */
  readonly unreachable?: { readonly cause: UnreachableCause; readonly words: string };
}

interface State {
  health: HealthState;
  failingChecks: string[];
  readyChecks?: string[];
  gitVersion?: string;
  latencyMs?: number;
  lastProbeAt?: number;
  lastError?: string;
  unreachable?: { cause: UnreachableCause; words: string };
  history: RingBuffer<HealthSample>;
}

/** What one /readyz?verbose answer says. */
export interface Readiness {
  readonly health: 'ready' | 'not-ready' | 'draining';
  readonly failingChecks: string[];
  /** The checks listed, when the body lists them (a 200, or a failure that names its checks). */
  readonly checks?: string[];
}

export function readReadyz(status: number, body: string): Readiness {
  const failingChecks = [...body.matchAll(/^\[-\]([^\s]+) failed/gm)].map((m) => m[1] ?? '');
  const listed = status === 200 || failingChecks.length > 0;
  const checks = listed ? [...body.matchAll(/^\[[+-]\]([^\s]+)/gm)].map((m) => m[1] ?? '') : undefined;
  const health = status === 200 ? 'ready' : failingChecks.some((c) => c.includes('shutdown')) ? 'draining' : 'not-ready';
  return { health, failingChecks, ...(checks ? { checks } : {}) };
}

export class HealthProbe {
  private readonly states = new Map<string, State>();
  private readonly historySize: number;
  private closed = false;

  constructor(private readonly options: HealthProbeOptions = {}) {
    this.historySize = options.historySize ?? 1_800;
  }

  /** Starts tracking a server (health unknown until its first probe). */
  add(name: string): void {
    this.states.set(name, { health: 'unknown', failingChecks: [], history: new RingBuffer(this.historySize) });
  }

  /** Stops tracking a server; a probe of it still running is dropped when it lands. */
  forget(name: string): void {
    this.states.delete(name);
  }

  health(name: string): HealthState {
    return this.states.get(name)?.health ?? 'unknown';
  }

  of(name: string): ServerHealth | undefined {
    return this.states.get(name);
  }

  history(name: string): HealthSample[] {
    return this.states.get(name)?.history.recent() ?? [];
  }

  async probe(name: string, reader: ServerReader): Promise<void> {
    const state = this.states.get(name);
    if (!state || state.health === 'gone' || this.closed) return;
    const started = performance.now();
    let health: HealthState;
    let failing: string[] = [];
    let checks = state.readyChecks;
    let gitVersion = state.gitVersion;
    let error: string | undefined;
    let unreachable: State['unreachable'];
    try {
      // Either failing fails the probe at once: a silent link is told by the readiness read's connect timeout.
      const readyz = reader.probe ? reader.probe('/readyz?verbose') : reader.get('/readyz?verbose');
      const [ready, version] = await Promise.all([readyz, reader.get('/version')]);
      const readiness = readReadyz(ready.status, ready.body);
      health = readiness.health;
      failing = readiness.failingChecks;
      checks = readiness.checks ?? checks;
      if (version.status === 200) gitVersion = (JSON.parse(version.body) as { gitVersion?: string }).gitVersion ?? gitVersion;
    } catch (err) {
      health = 'unreachable';
      // The cause first, in kubectl's words: what failed is what Server health, `servers` and a 503 say.
      const u = classifyUnreachable(err);
      error = u.message;
      unreachable = { cause: u.cause, words: u.words };
    }
    // Closed, gone, or removed (and maybe added again) while the probe ran: its answer is not this server's now.
    const now = this.states.get(name);
    if (this.closed || now !== state || now.health === 'gone') return;
    const latencyMs = performance.now() - started;
    const wasReachable = state.health !== 'unreachable' && state.health !== 'unknown';
    const versionChanged = gitVersion !== state.gitVersion;
    const changed =
      health !== state.health ||
      versionChanged ||
      failing.join() !== state.failingChecks.join() ||
      unreachable?.cause !== state.unreachable?.cause;
    const at = Date.now();
    Object.assign(state, {
      health,
      failingChecks: failing,
      readyChecks: checks,
      gitVersion,
      latencyMs,
      lastProbeAt: at,
      lastError: error,
      unreachable,
    });
    state.history.push({ at, health, ...(health !== 'unreachable' ? { latencyMs } : {}), ...(gitVersion ? { gitVersion } : {}) });
    if (changed) this.options.onChange?.(name);
    const returned = health === 'ready' && (!wasReachable || versionChanged);
    if (returned || (versionChanged && health !== 'unreachable')) this.options.onReturn?.(name);
  }

  /** The server left the cluster: no longer probed until it is back. */
  markGone(name: string, reason: string, at: number): void {
    const state = this.states.get(name);
    if (!state || this.closed) return;
    Object.assign(state, { health: 'gone', failingChecks: [], lastError: `gone: ${reason}`, lastProbeAt: at, unreachable: undefined });
    state.history.push({ at, health: 'gone', ...(state.gitVersion ? { gitVersion: state.gitVersion } : {}) });
  }

  /** A gone server was found again: unknown until its next probe. */
  markBack(name: string): void {
    const state = this.states.get(name);
    if (state) Object.assign(state, { health: 'unknown', failingChecks: [], lastError: undefined, unreachable: undefined });
  }

  /**
   * A forward to the server could not connect: stop handing it requests now (as a load balancer's
   * passive health check does) instead of waiting for the next probe, which brings it back when it
   * answers. True when this changed its health.
   */
  reportUnreachable(name: string, error: string): boolean {
    const state = this.states.get(name);
    if (!state || state.health === 'gone' || state.health === 'unreachable' || this.closed) return false;
    const u = classifyUnreachable(error);
    Object.assign(state, {
      health: 'unreachable',
      lastError: u.message,
      unreachable: { cause: u.cause, words: u.words },
      lastProbeAt: Date.now(),
    });
    state.history.push({ at: Date.now(), health: 'unreachable', ...(state.gitVersion ? { gitVersion: state.gitVersion } : {}) });
    return true;
  }

  close(): void {
    this.closed = true;
  }
}
