// The counts the recorded-rollout test (recording-rollout.test.ts) compares: what the live port says
// (its snapshot's cluster events per client, its /.peerscope/metrics per server and per routing
// outcome), what the recording says of the same, and what a server's audit log holds beside what
// the recording kept of it after a SIGKILL.
import { RecordingReader, type RecordedEvent } from '../../proxy-core/engine/recording/reader.js';
import type { EventSource } from '../../proxy-core/engine/recording/schema.js';
import { loggedRequests } from './recording-rollout-bed.js';

export type Counts = Map<string, number>;

export function add(m: Counts, key: string, n = 1): void {
  m.set(key, (m.get(key) ?? 0) + n);
}

export function sorted(m: Counts): [string, number][] {
  return [...m].sort(([a], [b]) => a.localeCompare(b));
}

export function shown(m: Counts, join = '; '): string {
  return sorted(m)
    .map(([k, n]) => `${k}: ${n}`)
    .join(join);
}

/** False 404s per "source | client | user | server", and per server; port requests per "outcome | handling | GVR". */
export interface FalseAndPort {
  readonly perClient: Counts;
  readonly perServer: Counts;
  readonly port: Counts;
}

interface Snapshot {
  cluster?: {
    totals: Record<string, number>;
    events: { via?: string; userAgent: string; user: string; server: string; outcome: string }[];
  };
}

/** The labels of one exposition line `name{a="x",…} value`. */
function labelsOf(line: string): Map<string, string> {
  return new Map([...line.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1] as string, m[2] as string]));
}

/** What the live port says now: per client from its snapshot's cluster events (all of them, or it throws), the rest from its metrics. */
export async function liveCounts(portUrl: string): Promise<FalseAndPort> {
  const snap = (await (await fetch(`${portUrl}/.peerscope/snapshot`)).json()) as Snapshot;
  const cluster = snap.cluster;
  if (!cluster) throw new Error('the snapshot has no cluster source');
  const total = Object.values(cluster.totals).reduce((a, b) => a + b, 0);
  if (cluster.events.length !== total) throw new Error(`the snapshot holds ${cluster.events.length} of ${total} cluster events`);
  const perClient: Counts = new Map();
  for (const e of cluster.events)
    if (e.outcome === 'false-404') add(perClient, `${e.via ?? 'audit-log'} | ${e.userAgent} | ${e.user} | ${e.server}`);
  const perServer: Counts = new Map();
  const port: Counts = new Map();
  for (const line of (await (await fetch(`${portUrl}/.peerscope/metrics`)).text()).split('\n')) {
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith('peerscope_cluster_false_404_total{')) add(perServer, labelsOf(line).get('server_id') ?? '', value);
    if (line.startsWith('peerscope_requests_total{')) {
      const l = labelsOf(line);
      const gvr = l.get('resource') ? `${l.get('group') || 'core'}/${l.get('version')}/${l.get('resource')}` : '-';
      add(port, `${l.get('outcome')} | ${l.get('handling_id') ?? ''} | ${gvr}`, value);
    }
  }
  return { perClient, perServer, port };
}

/** The same counts from the recording's per-minute rollups. */
export function recordedCounts(file: string): FalseAndPort {
  const reader = RecordingReader.open(file);
  try {
    const perClient: Counts = new Map();
    const perServer: Counts = new Map();
    const port: Counts = new Map();
    for (const c of reader.counts()) {
      if (c.source === 'port') {
        // A non-resource request is kept by its path; a resource request's subresource is not in the metrics' labels.
        const gvr = c.gvr.startsWith('/') ? '-' : c.gvr.split('/').slice(0, 3).join('/');
        add(port, `${c.outcome} | ${c.server ?? ''} | ${gvr}`, c.count);
      } else if (c.outcome === 'false-404') {
        add(perClient, `${c.source} | ${c.client} | ${c.user ?? ''} | ${c.server ?? ''}`, c.count);
        add(perServer, c.server ?? '', c.count);
      }
    }
    return { perClient, perServer, port };
  } finally {
    reader.close();
  }
}

export function sameCounts(a: FalseAndPort, b: FalseAndPort): boolean {
  const key = (x: FalseAndPort) => JSON.stringify([sorted(x.perClient), sorted(x.perServer), sorted(x.port)]);
  return key(a) === key(b);
}

/** One server's audit log beside what the recording kept of its events from one source, after a SIGKILL at `killAt`. */
export interface KillCheck {
  /** Requests the log has that began and ended inside one of the windows. */
  readonly logged: number;
  /** Of those, missing from the recording (compared by verb and code). */
  readonly lost: number;
  readonly expected: Counts;
  readonly recorded: Counts;
  /** Requests the log has from the last window's start up to the kill, and the events the recording has from then on. */
  readonly inLogToKill: number;
  readonly recordedToKill: number;
}

/** Windows [from, to] (epoch ms) in which every event the log has must be in the recording; the last one ends a grace before the kill. */
export function killCheck(
  logFile: string,
  events: readonly RecordedEvent[],
  where: {
    readonly source: EventSource;
    readonly server: string;
    readonly windows: readonly (readonly [number, number])[];
    readonly killAt: number;
  },
): KillCheck {
  const { source, server, windows, killAt } = where;
  const all = loggedRequests(logFile);
  // A millisecond's margin on both sides: the log keeps microseconds, the recording milliseconds.
  const logged = all.filter((e) => windows.some(([from, to]) => e.receivedAt >= from + 1 && e.stageAt <= to - 1));
  const expected: Counts = new Map();
  for (const e of logged) add(expected, `${e.verb} ${e.code}`);
  const mine = events.filter((e) => e.source === source && e.server === server);
  const recorded: Counts = new Map();
  for (const e of mine) if (windows.some(([from, to]) => e.at >= from && e.at <= to)) add(recorded, `${e.verb} ${e.code}`);
  const lastFrom = windows.at(-1)?.[0] ?? 0;
  return {
    logged: logged.length,
    lost: [...expected].reduce((n, [k, v]) => n + Math.max(0, v - (recorded.get(k) ?? 0)), 0),
    expected,
    recorded,
    inLogToKill: all.filter((e) => e.receivedAt >= lastFrom && e.stageAt <= killAt).length,
    recordedToKill: mine.filter((e) => e.at >= lastFrom).length,
  };
}

/** `windows` ending by `cutoff` at the latest (an open end is Infinity); those left empty dropped. */
export function clipWindows(windows: readonly (readonly [number, number])[], cutoff: number): [number, number][] {
  return windows.map(([from, to]): [number, number] => [from, Math.min(to, cutoff)]).filter(([from, to]) => from < to);
}

/** A kill check in one line; `grace` how long before the kill its last window ended. */
export function killLine(c: KillCheck, grace: number, windows: number): string {
  return `${c.logged} requests ended by kill − ${grace} ms${windows > 1 ? ` (in ${windows} windows)` : ''}, ${c.lost} of them missing from the recording; from the last window's start up to the kill ${c.inLogToKill} in the log, ${c.recordedToKill} recorded (${c.inLogToKill - c.recordedToKill} lost in the last ${grace} ms)`;
}

/** The live port's totals now: requests through it ("port") and the cluster source's per server ("cluster SERVER"). */
export async function liveTotals(portUrl: string): Promise<Counts> {
  const totals: Counts = new Map();
  for (const line of (await (await fetch(`${portUrl}/.peerscope/metrics`)).text()).split('\n')) {
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith('peerscope_requests_total{')) add(totals, 'port', value);
    if (line.startsWith('peerscope_cluster_requests_total{')) add(totals, `cluster ${labelsOf(line).get('server_id') ?? ''}`, value);
  }
  return totals;
}

/** The same totals of a recording's events. */
export function recordedTotals(events: readonly RecordedEvent[]): Counts {
  const totals: Counts = new Map();
  for (const e of events) add(totals, e.source === 'port' ? 'port' : `cluster ${e.server ?? ''}`);
  return totals;
}

/**
 * Reads the live totals every `everyMs` until stopped; each read is stamped with when its answer
 * arrived, so it counts nothing the port had not counted by then.
 */
export function sampleTotals(portUrl: string, everyMs = 100): { samples: { at: number; totals: Counts }[]; stop(): Promise<void> } {
  const samples: { at: number; totals: Counts }[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const totals = await liveTotals(portUrl);
        samples.push({ at: Date.now(), totals });
      } catch {
        // The port is gone: SIGKILLed.
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    samples,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
