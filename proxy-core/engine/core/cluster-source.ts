// The cluster source: what the servers themselves answered, from their audit logs followed from
// start() to close() and the events their audit webhooks post, counted in /.peerscope/metrics, judged
// against the route table of the moment each is read, with bad input counted and named alike.
import type { AuditProblemsSummary, AuditRead } from '../../contract/cluster.js';
import { AuditCounters, clusterEventOf, DeprecatedCalls, readAuditLogs, ReleaseTimeline, type AuditInput } from '../audit/index.js';
import { AuditProblems } from '../audit/problems.js';
import { countPostedEvents } from '../audit/webhook/count-posted.js';
import { startAuditWebhook, type AuditWebhook, type AuditWebhookOptions } from '../audit/webhook/receiver.js';
import type { ServerConfig } from '../cluster/server-config.js';
import type { ServerSet } from '../cluster/server-set.js';
import { clusterClientUsage } from '../impact/cluster-usage.js';
import type { RouteState } from '../proxy/route-state.js';
import { ClusterTraffic } from '../telemetry/cluster-traffic.js';
import type { ClientUsage } from '../telemetry/client-usage.js';
import type { Telemetry } from '../telemetry/telemetry.js';

/** The core's options that make a cluster source (CoreOptions says what each is). */
export interface ClusterSourceOptions {
  readonly servers: readonly ServerConfig[];
  readonly auditLogs?: readonly AuditInput[];
  readonly auditFollow?: boolean;
  readonly auditWebhook?: Omit<AuditWebhookOptions, 'onRecord'>;
  readonly onAuditProblem?: (line: string) => void;
}

export interface ClusterSource {
  /** What the servers answered; absent when no log is followed and no webhook received. */
  readonly cluster: ClusterTraffic | undefined;
  /** The cluster source's clients per GVR and verb (the upgrade-impact report's). */
  readonly clusterUsage: ClientUsage | undefined;
  /** Starts following the logs and receiving the webhook (once; the server set is started). */
  start(): Promise<void>;
  webhookUrl(): string | undefined;
  read(): AuditRead | undefined;
  problems(): AuditProblemsSummary | undefined;
  /** Stops the read of the log files and resolves once it has stopped; what was read still counts. */
  cancelRead(): Promise<void>;
  close(): Promise<void>;
}

/** What the source reads beside its options: the servers, the route table it judges by, the registry it counts in. */
export interface ClusterSourceParts {
  readonly servers: ServerSet;
  readonly routes: RouteState;
  readonly telemetry: Telemetry;
}

/** The counters, judges and feeds both inputs share. */
interface Sink {
  readonly counters: AuditCounters;
  readonly problems: AuditProblems;
  readonly cluster: ClusterTraffic;
  readonly deprecatedCalls: DeprecatedCalls;
  readonly releases: ReleaseTimeline;
}

export function createClusterSource(options: ClusterSourceOptions, parts: ClusterSourceParts): ClusterSource {
  const sink = createSink(options, parts);
  const logs = sink && options.auditLogs?.length ? followLogs(options.auditLogs, options.auditFollow ?? true, sink, parts) : undefined;
  let webhook: AuditWebhook | undefined;
  return {
    cluster: sink?.cluster,
    clusterUsage: sink && clusterClientUsage(sink.cluster),
    async start() {
      logs?.start();
      if (sink && options.auditWebhook && !webhook) webhook = await receiveWebhook(options.auditWebhook, sink, parts);
    },
    webhookUrl: () => webhook?.url,
    read: () => logs?.read(),
    problems: () => sink?.problems.summary(),
    cancelRead: () => logs?.cancel() ?? Promise.resolve(),
    async close() {
      await logs?.stop();
      await webhook?.close();
    },
  };
}

function createSink(options: ClusterSourceOptions, { servers, telemetry }: ClusterSourceParts): Sink | undefined {
  if (!options.auditLogs?.length && !options.auditWebhook) return undefined;
  const counters = new AuditCounters();
  counters.register(telemetry.registry);
  // Bad input of followed logs and posted batches, counted and named alike (audit/problems.ts).
  const problems = new AuditProblems(options.onAuditProblem);
  problems.register(telemetry.registry);
  // The servers whose audit logs are followed, or every server when any may post.
  const cluster = new ClusterTraffic(
    options.auditWebhook ? options.servers.map((s) => s.name) : [...new Set((options.auditLogs ?? []).map((l) => l.server))],
    undefined,
    [...(options.auditLogs?.length ? (['audit-log'] as const) : []), ...(options.auditWebhook ? (['audit-webhook'] as const) : [])],
  );
  // Who calls a deprecated API, from the audit annotations of files and webhook alike.
  const deprecatedCalls = new DeprecatedCalls();
  // Which release each server ran when: the probes' timeline, to which the logs add their servers' own requests.
  const releases = new ReleaseTimeline();
  servers.on('health', (name) => {
    const gitVersion = servers.status(name)?.gitVersion;
    if (gitVersion) releases.note(name, Date.now(), gitVersion);
  });
  cluster.setDeprecatedCalls(deprecatedCalls);
  return { counters, problems, cluster, deprecatedCalls, releases };
}

/** The audit log files, followed (or read once, with progress) from start() until stopped. */
function followLogs(inputs: readonly AuditInput[], follow: boolean, sink: Sink, { servers, routes }: ClusterSourceParts) {
  const stop = new AbortController();
  let reading: Promise<unknown> | undefined;
  let read: AuditRead = {
    files: inputs.map((l) => ({ server: l.server, file: l.file })),
    follow,
    state: 'reading',
    bytesRead: 0,
    bytesTotal: null,
    lines: 0,
    requests: 0,
  };
  const start = () => {
    if (reading) return;
    // A getter: each event is judged by the route table of the moment it is read.
    const judgement = {
      get table() {
        return routes.table;
      },
      description: { kind: 'servers' as const, servers: [] },
    };
    reading = readAuditLogs(inputs, {
      judgement,
      follow,
      signal: stop.signal,
      todayRelease: (server) => servers.status(server)?.gitVersion,
      timeline: sink.releases,
      onProblem: (p) => sink.problems.add({ ...p, source: 'audit-log', input: p.file }),
      // Until the files' content as it was at the start is read, a follow is a read under way too.
      onProgress: (p) => {
        // A cancelled read's last figures still arrive (what was read counts); its state stays.
        const state = read.state === 'cancelled' ? 'cancelled' : p.caughtUp && follow ? 'following' : 'reading';
        read = { ...read, state, bytesRead: p.bytesRead, bytesTotal: p.bytesAtStart, lines: p.lines, requests: p.requests };
      },
      onRequest: (r, o, judgedBy) => {
        sink.counters.add(r, o);
        sink.deprecatedCalls.add(r);
        sink.cluster.record(clusterEventOf(r, o, 'audit-log', judgedBy));
      },
    }).then((report) => {
      read = { ...read, state: report.complete ? 'done' : 'cancelled' };
      return report;
    });
  };
  const stopNow = async () => {
    stop.abort();
    await reading;
  };
  return {
    start,
    read: () => read,
    async cancel() {
      if (read.state === 'reading' || read.state === 'following') read = { ...read, state: 'cancelled' };
      // Its last figures come as it stops: the answer has them.
      await stopNow();
    },
    stop: stopNow,
  };
}

/** The receiver of the servers' audit webhooks: the events they post are counted as the followed logs' are. */
async function receiveWebhook(
  options: Omit<AuditWebhookOptions, 'onRecord'>,
  sink: Sink,
  { servers, routes, telemetry }: ClusterSourceParts,
): Promise<AuditWebhook> {
  const webhook = await startAuditWebhook({
    ...options,
    onProblem: (sender, reason, detail) => {
      options.onProblem?.(sender, reason, detail);
      sink.problems.add({ server: sender, source: 'audit-webhook', reason, where: 'a posted batch', detail, input: sender });
    },
    onRecord: countPostedEvents(
      sink.counters,
      () => routes.table,
      (r, o, judgedBy) => {
        sink.deprecatedCalls.add(r);
        sink.cluster.record(clusterEventOf(r, o, 'audit-webhook', judgedBy));
      },
      (server) => servers.status(server)?.gitVersion,
      sink.releases,
    ),
  });
  webhook.counters.register(telemetry.registry);
  return webhook;
}
