// A server whose discovery cannot be read now (it is being upgraded, it is stopped, its discovery is
// forbidden) is judged by its last known discovery instead of being taken as serving nothing: the
// catalog's release of the minor its own requests last named in the logs (`kube-apiserver/<gitVersion>`
// of user system:apiserver), else of the release its /version gave now. Where neither is known it stays
// unknown, and what it would decide is undetermined (classify.ts). Each use is counted per server, so
// the report says which servers were judged from last known discovery.
import type { AuditReport } from '../../contract/audit.js';
import type { RouteTable } from '../routing/route-table.js';
import { LOOPBACK_USER, type AuditInput } from './inputs.js';
import { readLines, STDIN } from './read-lines.js';
import { catalogGvrs, catalogReleaseOf, type ReleaseTimeline } from './timeline.js';

type StandIn = NonNullable<AuditReport['standIns']>[number];
type Pick = Omit<StandIn, 'requests'>;

/** How far into a log its server's own requests are looked for before the read (they come every few seconds). */
const PEEK_LINES = 20_000;
const APISERVER_AGENT = /^kube-apiserver\/(v\d+\.\d+\.\d+\S*)/;

export class StandIns {
  private readonly tables = new WeakMap<RouteTable, Map<string, RouteTable>>();
  private readonly used = new Map<string, StandIn>();

  constructor(
    private readonly timeline: ReleaseTimeline,
    private readonly today: (server: string) => string | undefined,
  ) {}

  /** `table` with each server of unknown discovery stood in for where its release is known; counts the use. */
  apply(table: RouteTable | undefined, at: number): RouteTable | undefined {
    if (!table) return table;
    const picks: Pick[] = [];
    for (const server of table.serverNames) {
      if (table.known(server)) continue;
      const logged = this.timeline.releaseAt(server, at) ?? this.timeline.latest(server);
      const gitVersion = logged ?? this.today(server);
      const release = gitVersion && catalogReleaseOf(gitVersion);
      if (release) picks.push({ server, release, from: logged ? 'log' : 'version' });
    }
    if (picks.length === 0) return table;
    for (const p of picks) {
      const row = this.used.get(p.server) ?? { ...p, requests: 0 };
      this.used.set(p.server, { ...p, requests: row.requests + 1 });
    }
    const key = picks.map((p) => `${p.server}\u0000${p.release}`).join('\u0001');
    let cache = this.tables.get(table);
    if (!cache) this.tables.set(table, (cache = new Map()));
    let stood = cache.get(key);
    if (!stood) {
      stood = picks.reduce((t, p) => t.withServer(p.server, catalogGvrs(p.release)), table);
      cache.set(key, stood);
    }
    return stood;
  }

  /** The servers judged from last known discovery, with the requests each stood in for. */
  report(): StandIn[] {
    return [...this.used.values()].sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
  }
}

/**
 * Before a read: the release each server of unknown discovery ran, from its own requests in the first
 * lines of its log, so the other servers' logs read before its own are judged by it too.
 */
export async function peekOwnReleases(
  inputs: readonly AuditInput[],
  unknown: (server: string) => boolean,
  timeline: ReleaseTimeline,
): Promise<void> {
  for (const input of inputs) {
    if (input.file === STDIN || !unknown(input.server)) continue;
    try {
      for await (const line of readLines(input.file)) {
        if (line.line > PEEK_LINES) break;
        if (!line.text.includes(LOOPBACK_USER)) continue;
        let e: { user?: { username?: unknown }; userAgent?: unknown; requestReceivedTimestamp?: unknown };
        try {
          e = JSON.parse(line.text) as typeof e;
        } catch {
          continue; // a bad line is the read's to name
        }
        const m = typeof e.userAgent === 'string' ? APISERVER_AGENT.exec(e.userAgent) : null;
        const at = typeof e.requestReceivedTimestamp === 'string' ? Date.parse(e.requestReceivedTimestamp) : NaN;
        if (e.user?.username === LOOPBACK_USER && m && Number.isFinite(at)) timeline.note(input.server, at, m[1]!);
      }
    } catch {
      // An unreadable file is the read's to name.
    }
  }
}
