// What `peerscope snapshot save | diff | show` run (snapshot.ts registers them and their flags).
import { Agent, request } from '../../engine/upstream/undici.js';
import { shownName } from '../../contract/servers.js';
import { snapshotServerNames, type RoutingSnapshot } from '../../contract/snapshot.js';
import {
  diffSnapshots,
  formatDiff,
  parseSnapshot,
  readSnapshotFile,
  serializeSnapshot,
  writeSnapshotFile,
} from '../../engine/snapshot/index.js';
import { canonicalRelease } from '../../engine/releases/index.js';
import { formatTable } from '../../engine/util/text-table.js';
import { unreachablePort } from './options.js';
import { errnoWords } from '../../engine/util/errno.js';
import { InputError } from '../../engine/util/input-error.js';
import { RecordingReader } from '../../engine/recording/reader.js';
import { snapshotAt } from '../service/snapshot-at.js';
import { prepareClusterSession } from '../session/cluster.js';
import { fail } from './usage.js';

export interface SaveFlags {
  out: string;
  portUrl: string;
  from?: string;
  kubeconfig?: string;
  context?: string;
  recording?: string;
  at?: number;
}

/** `readPortUrl` reads --port-url (or its old name) after the checks of the other flags, as before. */
export async function saveSnapshot(flags: SaveFlags, readPortUrl: () => string): Promise<void> {
  if (flags.context && !flags.kubeconfig) fail('--context goes with --kubeconfig; give --kubeconfig FILE too, or drop --context');
  if (flags.recording && flags.kubeconfig) fail('--recording and --kubeconfig are two sources of a snapshot: give one');
  if (flags.recording && flags.at === undefined) fail('--recording needs --at TIME: the moment to take the snapshot of');
  if (flags.at !== undefined && !flags.recording) fail('--at goes with --recording; give --recording FILE too, or drop --at');
  const portUrl = readPortUrl();
  const snap = flags.recording
    ? snapshotOfRecording(flags.recording, flags.at!)
    : flags.kubeconfig
      ? await snapshotOfCluster(flags.kubeconfig, flags.context)
      : await snapshotOfRunning(portUrl);
  // `-` is standard output, as for kubectl; what was written is then said on standard error.
  const toStdout = flags.out === '-';
  if (toStdout) process.stdout.write(serializeSnapshot(snap));
  else guard(() => writeSnapshot(flags.out, snap));
  (toStdout ? console.error : console.log)(
    `wrote ${toStdout ? 'standard output' : flags.out}: ${snap.servers.length} servers, ${snap.routeTable.rows.length} GVRs (${snap.routeTable.skewed.length} skewed), ${snap.events.length} events${snap.cluster ? `, ${snap.cluster.events.length} cluster events` : ''}`,
  );
}

export function diffSnapshotFiles(before: string, after: string, flags: { output: 'text' | 'json' }): void {
  const earlier = guard(() => readSnapshotFile(before));
  const later = guard(() => readSnapshotFile(after));
  const d = diffSnapshots(earlier, later);
  process.stdout.write(
    flags.output === 'json' ? JSON.stringify(d, null, 2) + '\n' : formatDiff(d, snapshotServerNames(later, earlier), canonicalRelease),
  );
}

export function showSnapshot(file: string, flags: { output: 'text' | 'json' }): void {
  const s: RoutingSnapshot = guard(() => readSnapshotFile(file));
  const summary = summaryOf(s);
  if (flags.output === 'json') {
    process.stdout.write(JSON.stringify({ file, ...summary }, null, 2) + '\n');
    return;
  }
  console.log(
    `${file}: taken ${s.takenAt} from ${s.source.kind}${s.source.context ? ` (${s.source.context})` : ''}, policy ${s.settings.policy}, discovery ${s.settings.discoveryMode}`,
  );
  const leased = summary.servers.some((srv) => srv.lease !== undefined);
  const table = [
    ['NAME', ...(leased ? ['LEASE'] : []), 'RELEASE', 'HEALTH', 'GVRS'],
    ...summary.servers.map((srv) => [srv.name, ...(leased ? [srv.lease ?? '-'] : []), srv.release ?? '-', srv.health, String(srv.gvrs)]),
  ];
  for (const line of formatTable(table)) console.log(line);
  console.log(`skewed GVRs: ${s.routeTable.skewed.length ? s.routeTable.skewed.join(', ') : 'none'}`);
  if (s.cluster) console.log(clusterLine(s.cluster));
  if (s.recorded)
    console.log(
      `built from the recording ${s.recorded.file} at ${s.recorded.at}; left out (not recorded): ${s.recorded.omitted.map((o) => o.part).join(', ')}`,
    );
}

/** The recording's state at `at`; a file that is not a whole recording, or a moment outside it, ends the command naming it. */
function snapshotOfRecording(file: string, at: number): RoutingSnapshot {
  let reader: RecordingReader | undefined;
  try {
    reader = RecordingReader.open(file);
    return snapshotAt(reader, at);
  } catch (err) {
    return fail((err as Error).message);
  } finally {
    reader?.close();
  }
}

/** A snapshot's servers as `snapshot show` prints them: the host name, the identity beside it where they differ. */
function summaryOf(s: RoutingSnapshot) {
  return {
    takenAt: s.takenAt,
    source: s.source,
    settings: s.settings,
    servers: s.servers.map((srv) => ({
      name: shownName(srv),
      ...(shownName(srv) === srv.name ? {} : { lease: srv.name }),
      release: srv.gitVersion ? canonicalRelease(srv.gitVersion) : null,
      health: srv.health,
      gvrs: srv.discovery.gvrs.length,
    })),
    skewed: s.routeTable.skewed,
  };
}

/** What the servers themselves answered, as the snapshot recorded it (its audit logs and webhook). */
function clusterLine(c: NonNullable<RoutingSnapshot['cluster']>): string {
  const total = Object.values(c.totals).reduce((a, b) => a + b, 0);
  const sources = c.sources.length ? c.sources.map((s) => `${s} ${c.bySource[s] ?? 0}`).join(', ') : 'nothing read yet';
  return `cluster source (${sources}): ${total} requests the servers answered, ${c.totals['false-404']} false 404s, ${c.events.length} recent kept; ${c.deprecatedCalls.length} client × deprecated API pair(s)`;
}

async function snapshotOfRunning(from: string): Promise<RoutingSnapshot> {
  const url = `${from.replace(/\/$/, '')}/.peerscope/snapshot`;
  let text: string;
  const agent = new Agent();
  try {
    const res = await request(url, { dispatcher: agent });
    text = await res.body.text();
    if (res.statusCode !== 200) fail(`${url} answered HTTP ${res.statusCode}`);
  } catch (err) {
    return fail(`${from}: ${unreachablePort(err)}`);
  } finally {
    await agent.close();
  }
  return guard(() => parseSnapshot(text, url));
}

/** Every apiserver found, probed and its discovery read once (what core.start() waits for), then closed. */
async function snapshotOfCluster(kubeconfig: string, context: string | undefined): Promise<RoutingSnapshot> {
  let prepared;
  try {
    prepared = await prepareClusterSession({ kubeconfig, listen: { host: '127.0.0.1', port: 0 }, ...(context ? { context } : {}) });
  } catch (err) {
    return fail((err as Error).message);
  }
  for (const w of prepared.warnings) process.stderr.write(`peerscope: warning: ${w}\n`);
  const session = await prepared.start();
  try {
    // Each real server's own peer-proxy counters, read once, so the snapshot records them.
    await session.core.servers.readOwnMetrics();
    return await session.service.takeSnapshot();
  } finally {
    await session.close();
  }
}

function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof InputError) fail(err.message);
    throw err;
  }
}

/** The snapshot written to `file`; a file that cannot be written is a usage error naming it. */
function writeSnapshot(file: string, snap: RoutingSnapshot): void {
  try {
    writeSnapshotFile(file, snap);
  } catch (err) {
    fail(`--out ${file}: cannot write: ${errnoWords(err)}`);
  }
}
