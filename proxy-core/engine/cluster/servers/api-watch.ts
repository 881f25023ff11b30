// Discovery as fresh as the servers' own: one watch of CustomResourceDefinitions and one of
// APIServices, through one server (they live in etcd, every server sees the same), and every event
// re-reads every server's discovery with its ETag. Servers update their own discovery independently,
// moments after a change (a CRD is in a server's /apis ms after it is Established), so an event is
// followed by a few re-reads spread over ~1.5 s; each costs a 304 when nothing changed. Without this
// the port saw a new CRD only at the periodic re-read (every 30 s) and, meanwhile, told kubectl the
// server had no such resource. docs/decisions.md says why a watch and not polling.
//
// A watch that ends is opened again from the last resourceVersion; "410 Gone" (too old) lists again
// and re-reads, as a change may have been missed. An RBAC refusal stops that watch with one line
// saying so (a server without the API, quietly): the periodic re-read still runs.
import type { ServerReadStream } from '../server-reader.js';
import type { DiscoveryReader } from '../../discovery/fetch.js';
import { describeError } from '../server-reader.js';

/** What the watch reads through: the core's reader of one server. */
export interface WatchClient extends DiscoveryReader {
  stream(path: string, signal: AbortSignal): Promise<ServerReadStream>;
}

export interface ApiWatchOptions {
  /** The server to watch through now (a ready one), or undefined when none is. */
  readonly through: () => WatchClient | undefined;
  /** A CRD or APIService changed: re-read every server's discovery (conditional reads, shared when under way). */
  readonly reread: (resource: WatchedResource) => Promise<void>;
  /** One line for a host's log (a refused watch). */
  readonly notice: (line: string) => void;
  /** When, after the latest event, the re-reads run (ms). */
  readonly rereadDelaysMs?: readonly number[];
  /** First wait before opening again a watch that failed; doubled up to `maxRetryMs`. */
  readonly retryMs?: number;
  readonly maxRetryMs?: number;
  /** The period of the discovery re-read the port falls back to, for the notice. */
  readonly periodMs: number;
  /** How long the server keeps one watch open (timeoutSeconds; it is opened again at once). */
  readonly watchSeconds?: number;
}

export const WATCHED_APIS = [
  { resource: 'customresourcedefinitions', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions' },
  { resource: 'apiservices', path: '/apis/apiregistration.k8s.io/v1/apiservices' },
] as const;
export type WatchedResource = (typeof WATCHED_APIS)[number]['resource'];

/** Re-reads at 50 ms, 400 ms and 1.5 s after the latest event: all within the 2 s the port promises. */
export const DEFAULT_REREAD_DELAYS_MS = [50, 400, 1_500] as const;

/** A watch that lasted less than this was not a watch: the next is opened after a backoff. */
const MIN_WATCH_MS = 1_000;

type WatchState = 'starting' | 'watching' | 'refused' | 'retrying';

export class ApiWatch {
  private readonly stop = new AbortController();
  private readonly timers = new Map<WatchedResource, Set<NodeJS.Timeout>>();
  private readonly states = new Map<string, WatchState>();
  /** The open watches: the server each goes through, and how to end it. */
  private readonly open = new Set<{ readonly server: string; readonly abort: AbortController }>();
  private loops: Promise<void>[] = [];
  /** Events seen (ADDED, MODIFIED, DELETED), for tests and the log. */
  events = 0;
  /** Waits before opening a watch again (after an error, or a watch the server ended at once). */
  backoffs = 0;
  /** Why the latest attempt failed, if it did. */
  lastError: string | undefined;

  constructor(private readonly options: ApiWatchOptions) {}

  start(): void {
    this.loops = WATCHED_APIS.map((api) => this.follow(api.resource, api.path));
  }

  /**
   * The server a watch goes through was found unreachable: end its watches (on a silent link nothing
   * else would); they are opened again, after a back-off, through a server that is ready.
   */
  serverDown(name: string): void {
    for (const w of this.open) if (w.server === name) w.abort.abort(new Error(`${name} was found unreachable`));
  }

  /** Per watched resource: starting, watching, refused (periodic re-read only) or retrying. */
  state(resource: string): WatchState | undefined {
    return this.states.get(resource);
  }

  async close(): Promise<void> {
    this.stop.abort();
    for (const timers of this.timers.values()) for (const t of timers) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled(this.loops);
  }

  /** Something changed: the re-reads are (re)scheduled from now. */
  private changed(resource: WatchedResource): void {
    if (this.stop.signal.aborted) return;
    const timers = this.timers.get(resource) ?? new Set<NodeJS.Timeout>();
    this.timers.set(resource, timers);
    for (const t of timers) clearTimeout(t);
    timers.clear();
    for (const delay of this.options.rereadDelaysMs ?? DEFAULT_REREAD_DELAYS_MS) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        void this.options.reread(resource).catch(() => undefined);
      }, delay);
      timer.unref();
      timers.add(timer);
    }
  }

  private async follow(resource: WatchedResource, path: string): Promise<void> {
    const retryMs = this.options.retryMs ?? 1_000;
    const maxRetryMs = this.options.maxRetryMs ?? 30_000;
    const watchSeconds = this.options.watchSeconds ?? 300;
    let wait = retryMs;
    let resourceVersion: string | undefined;
    this.states.set(resource, 'starting');
    while (!this.stop.signal.aborted) {
      const client = this.options.through();
      try {
        if (!client) throw new Error('no server is ready');
        if (resourceVersion === undefined) {
          // limit=1: only the list's resourceVersion is wanted, not every CRD's schema.
          const list = await client.get(`${path}?limit=1`, { accept: 'application/json' });
          if (this.refused(resource, client, list.status, list.body)) return;
          if (list.status !== 200) throw new Error(`HTTP ${list.status} listing ${resource}`);
          resourceVersion = (JSON.parse(list.body) as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ?? '';
          // What changed before this list (after the core's first read of discovery, or between a 410
          // or an error and now) was not seen as an event: the list stands for it.
          this.changed(resource);
        }
        const query = `watch=1&allowWatchBookmarks=true&timeoutSeconds=${watchSeconds}${resourceVersion ? `&resourceVersion=${encodeURIComponent(resourceVersion)}` : ''}`;
        const own = { server: client.server.name, abort: new AbortController() };
        this.open.add(own);
        let res: ServerReadStream;
        try {
          res = await client.stream(`${path}?${query}`, AbortSignal.any([this.stop.signal, own.abort.signal]));
        } catch (err) {
          this.open.delete(own);
          throw err;
        }
        if (res.status !== 200) {
          this.open.delete(own);
          const body = await res.body.text();
          if (this.refused(resource, client, res.status, body)) return;
          if (res.status === 410) {
            resourceVersion = undefined;
            continue;
          }
          throw new Error(`HTTP ${res.status} watching ${resource}`);
        }
        this.states.set(resource, 'watching');
        const opened = Date.now();
        const gone = await this.read(res.body, resource, (rv) => (resourceVersion = rv)).finally(() => this.open.delete(own));
        if (gone) resourceVersion = undefined;
        // A server ends a watch after timeoutSeconds; one that ends it at once (no watch support, a
        // proxy in the way) would otherwise be asked again in a tight loop: back off as after an error.
        if (Date.now() - opened < MIN_WATCH_MS) {
          this.backoffs++;
          await this.sleep(wait);
          wait = Math.min(wait * 2, maxRetryMs);
        } else wait = retryMs;
      } catch (err) {
        if (this.stop.signal.aborted) return;
        this.states.set(resource, 'retrying');
        // A failed watch may have missed events: list again, then re-read.
        resourceVersion = undefined;
        this.lastError = describeError(err);
        this.backoffs++;
        await this.sleep(wait);
        wait = Math.min(wait * 2, maxRetryMs);
      }
    }
  }

  /** Reads watch events until the stream ends; true when the server said 410 (list again). */
  private async read(body: AsyncIterable<Buffer>, resource: WatchedResource, seen: (resourceVersion: string) => void): Promise<boolean> {
    let pending = '';
    for await (const chunk of body) {
      pending += chunk.toString('utf8');
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        if (!line) continue;
        const event = JSON.parse(line) as { type?: string; object?: { code?: number; metadata?: { resourceVersion?: string } } };
        if (event.type === 'ERROR') return event.object?.code === 410;
        const rv = event.object?.metadata?.resourceVersion;
        if (rv) seen(rv);
        if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') {
          this.events++;
          this.changed(resource);
        }
      }
    }
    return false;
  }

  /**
   * 401/403 (RBAC): stop this watch, say so once. 404 (a server without the API, e.g. a simulated
   * one): stop quietly, there is nothing to watch.
   */
  private refused(resource: string, client: WatchClient, status: number, body: string): boolean {
    if (status !== 401 && status !== 403 && status !== 404) return false;
    this.states.set(resource, 'refused');
    if (status === 404) return true;
    const message = statusMessage(body);
    this.options.notice(
      `cannot watch ${resource} through ${client.server.name} (HTTP ${status}${message ? `: ${message}` : ''}); their changes show in discovery at the periodic re-read (every ${Math.round(this.options.periodMs / 1000)} s)`,
    );
    return true;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.stop.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  }
}

function statusMessage(body: string): string | undefined {
  try {
    const s = JSON.parse(body) as { kind?: string; message?: string };
    return s.kind === 'Status' ? s.message : undefined;
  } catch {
    return undefined;
  }
}
