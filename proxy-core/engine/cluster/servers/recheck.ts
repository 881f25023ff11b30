// The look again the port takes before it answers "nobody serves this GVR" (404) or "every candidate
// is down" (503): at every server it believes out of service or whose discovery is not current, since
// one that just came back at a new release may serve it. The look must start no earlier than the
// request's arrival: one taken before could have missed a server that came back in between, and the
// request would get a false 404. Requests share looks: those arriving while one runs share the next,
// so at most one runs and one waits, and none at all while every server is in service.
import type { HealthState } from '../../../contract/servers.js';
import type { CachedDiscovery } from './discovery-cache.js';

/** What a look needs of the server set. */
export interface RecheckTarget {
  /** The servers in the cluster now (gone ones left out). */
  inService(): readonly string[];
  health(name: string): HealthState;
  discovery(name: string): CachedDiscovery | undefined;
  /** Probes the server; when it is back this starts a read of its discovery (visible as `inFlight`). */
  probe(name: string): Promise<void>;
  refresh(name: string): Promise<void>;
}

export class OutOfServiceRecheck {
  private inFlight: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  /** performance.now() when the latest look started. */
  private startedAt = -Infinity;

  constructor(private readonly target: RecheckTarget) {}

  /** Resolves once a look that started at or after `since` (performance.now()) has finished. */
  recheck(since = performance.now()): Promise<void> {
    if (this.startedAt >= since) return this.inFlight ?? Promise.resolve();
    if (!this.inFlight) return this.start();
    this.queued ??= this.inFlight.then(() => {
      this.queued = undefined;
      return this.start();
    });
    return this.queued;
  }

  private start(): Promise<void> {
    this.startedAt = performance.now();
    const t = this.target;
    const suspects = t.inService().filter((n) => !isCurrent(t.health(n), t.discovery(n)));
    if (suspects.length === 0) return Promise.resolve();
    const look: Promise<void> = Promise.all(
      suspects.map(async (name) => {
        const before = t.discovery(name);
        // A read already under way is the freshest answer there is: wait for it instead of probing.
        if (before?.inFlight && t.health(name) === 'ready') return before.inFlight;
        await t.probe(name);
        // probe() starts a discovery read when the server is back; wait for it to land.
        const after = t.discovery(name);
        if (after?.inFlight) await after.inFlight;
        else if (t.health(name) === 'ready' && (!after?.document || after.error !== undefined)) await t.refresh(name);
      }),
    )
      .then(() => undefined)
      .finally(() => {
        if (this.inFlight === look) this.inFlight = undefined;
      });
    this.inFlight = look;
    return look;
  }
}

/** Ready, with a document read and no read failing or under way. */
function isCurrent(health: HealthState, d: CachedDiscovery | undefined): boolean {
  return health === 'ready' && d?.document !== undefined && d.error === undefined && d.inFlight === undefined;
}
