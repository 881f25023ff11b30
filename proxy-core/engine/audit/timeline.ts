// Judging an event by the release its server ran when the request came, not only by today's discovery.
// Which release a server ran at a moment comes from the server itself: its own requests (its loopback
// client, user system:apiserver, renewing its lease every few seconds) carry the user agent
// `kube-apiserver/<gitVersion> …`, so an audit log tells its server's release all along, also for the
// days before Peerscope saw anything. When that was another minor release than today's (the server
// was upgraded since) and the release catalog knows that minor release, the event is judged against
// that release's GVRs for its server; otherwise against today's discovery. Each judgement says which
// (`timeline` or `today`), and the report counts both. The other servers are taken as they are today:
// their own logs may be read after this one, so what they ran then is not known yet.
import { bundledReleaseNames, catalogEntries, loadRelease } from '../releases/index.js';
import type { RouteTable } from '../routing/route-table.js';
import type { GVR } from '../discovery/types.js';
import type { AuditRecord } from './event.js';
import { LOOPBACK_USER } from './inputs.js';

export type JudgedBy = 'timeline' | 'today';

const APISERVER_AGENT = /^kube-apiserver\/(v\d+\.\d+\.\d+\S*)/;

/** Per server, the release it ran from each moment on, as its own requests tell it. */
export class ReleaseTimeline {
  /** Oldest first; a mark only where the release changed. */
  private readonly marks = new Map<string, { at: number; gitVersion: string }[]>();

  /** A record of the server's own request notes the release it ran then. */
  noteRecord(record: AuditRecord): void {
    if (record.user !== LOOPBACK_USER) return;
    const m = APISERVER_AGENT.exec(record.userAgent);
    if (m) this.note(record.server, record.receivedAt, m[1]!);
  }

  note(server: string, at: number, gitVersion: string): void {
    let list = this.marks.get(server);
    if (!list) this.marks.set(server, (list = []));
    // Logs come in time order: a mark lands at the end, but rotated files read out of order must not break it.
    let i = list.length;
    while (i > 0 && list[i - 1]!.at > at) i--;
    if (list[i - 1]?.gitVersion === gitVersion) return;
    list.splice(i, 0, { at, gitVersion });
    if (list[i + 1]?.gitVersion === gitVersion) list.splice(i + 1, 1);
  }

  /** The last release its own requests named; undefined when none did. */
  latest(server: string): string | undefined {
    return this.marks.get(server)?.at(-1)?.gitVersion;
  }

  /** The release `server` ran at `at`; undefined before its first own request. */
  releaseAt(server: string, at: number): string | undefined {
    const list = this.marks.get(server);
    if (!list) return undefined;
    let found: string | undefined;
    for (const m of list) {
      if (m.at > at) break;
      found = m.gitVersion;
    }
    return found;
  }
}

/** "v1.36.3" → "1.36". */
export function minorOf(gitVersion: string): string | undefined {
  return /^v?(\d+\.\d+)/.exec(gitVersion)?.[1];
}

/** The catalog release of the same minor, or undefined when the catalog has none. */
export function catalogReleaseOf(gitVersion: string): string | undefined {
  const minor = minorOf(gitVersion);
  return bundledReleaseNames().find((n) => minorOf(loadRelease(n).gitVersion) === minor);
}

/** The GVRs of the catalog release of the same minor, or undefined when the catalog has none. */
export function catalogGvrs(gitVersion: string): GVR[] | undefined {
  const name = catalogReleaseOf(gitVersion);
  if (!name) return undefined;
  return [...catalogEntries(loadRelease(name))].map((e) => ({ group: e.group, version: e.version, resource: e.resource.name }));
}

/**
 * The table to judge a record by, and which it is. `today` gives a server's release as judged today
 * (its discovery's gitVersion); tables of a past release are built once per (server, release, table).
 */
export class TimelineJudge {
  private readonly tables = new Map<string, { base: RouteTable; table: RouteTable | undefined }>();
  readonly counts: Record<JudgedBy, number> = { timeline: 0, today: 0 };

  constructor(
    readonly timeline: ReleaseTimeline,
    private readonly today: (server: string) => string | undefined,
  ) {}

  tableFor(record: AuditRecord, todayTable: RouteTable | undefined): { table: RouteTable | undefined; judgedBy: JudgedBy } {
    this.timeline.noteRecord(record);
    const now = this.today(record.server);
    const then = this.timeline.releaseAt(record.server, record.receivedAt);
    // A patch release serves what its minor release serves: only another minor release is judged apart.
    if (todayTable && now && then && minorOf(then) !== minorOf(now) && todayTable.known(record.server)) {
      const table = this.pastTable(record.server, then, todayTable);
      if (table) {
        this.counts.timeline++;
        return { table, judgedBy: 'timeline' };
      }
    }
    this.counts.today++;
    return { table: todayTable, judgedBy: 'today' };
  }

  private pastTable(server: string, gitVersion: string, base: RouteTable): RouteTable | undefined {
    const key = `${server}\u0000${gitVersion}`;
    const cached = this.tables.get(key);
    if (cached && cached.base === base) return cached.table;
    const gvrs = catalogGvrs(gitVersion);
    const table = gvrs ? base.withServer(server, gvrs) : undefined;
    this.tables.set(key, { base, table });
    return table;
  }
}
