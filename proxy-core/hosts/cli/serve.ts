// `peerscope serve`: the local port in front of every apiserver of a cluster.
import { accessSync, constants } from 'node:fs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { collectAuditInputSpec, matchAuditInputs, type AuditInput, type AuditInputSpec } from '../../engine/audit/index.js';
import { shownName } from '../../contract/servers.js';
import type { DiscoveryMode } from '../../contract/settings.js';
import { reachabilityLines } from '../../engine/cluster/reachability.js';
import { serversFromKubeconfig } from '../../engine/cluster/from-kubeconfig.js';
import { identityOf } from '../../engine/telemetry/client-identity.js';
import type { ServerConfig, ServerSource } from '../../engine/cluster/server-config.js';
import { createCore, DEFAULT_SERVER_REFRESH_MS, type ServerRefresh } from '../../engine/core.js';
import { formatPolicy } from '../../engine/proxy/policy.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_HEADERS_TIMEOUT_MS } from '../../engine/upstream/pool.js';
import { HEAP_GROWING_PERCENT } from '../../engine/util/heap-growth.js';
import { addAuditWebhookOptions, auditWebhookOf, webhookProblemLog, type AuditWebhookFlags } from './audit-webhook-flags.js';
import { addPortFilterOptions, portFilters, type PortFilterFlags } from './port-filters.js';
import { checkNewRecording } from './recording.js';
import { serversFromFlags } from './server-flags.js';
import { startUiHost } from './ui.js';
import {
  FAITHFUL_HELP,
  parseDiscoveryMode,
  parseListen,
  parseNameEqualsUrl,
  parsePolicyOption,
  parsePositiveInt,
  onShutdown,
} from './options.js';

interface ServeFlags extends PortFilterFlags, AuditWebhookFlags {
  auditLog: AuditInputSpec[];
  server: { name: string; url: string }[];
  kubeconfig?: string;
  context?: string;
  ca?: string;
  tokenFile?: string;
  listen: { host: string; port: number };
  policy: ReturnType<typeof parsePolicyOption>;
  discovery: DiscoveryMode;
  faithful: boolean;
  maxEvents: number;
  serverMetrics: number;
  ui: boolean;
  serverRefresh: number;
  /** The old name of --server-refresh, still accepted. */
  peerRefresh?: number;
  upstreamConnectTimeout: number;
  upstreamHeadersTimeout: number;
  record?: string;
}

export function registerServeCommand(program: Command): void {
  const command = program
    .command('serve')
    .description('serve a local port (like kubectl proxy) that routes every request by the Mixed Version Proxy rules')
    .addOption(
      new Option('--server <name=url>', 'an apiserver to route to (repeat for each); with --kubeconfig, adds or overrides a server')
        .argParser(parseNameEqualsUrl)
        .default([], 'none'),
    )
    .option('--kubeconfig <file>', 'find every apiserver of the cluster from this kubeconfig (default: $KUBECONFIG, ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context (default: current-context)')
    .option('--ca <file>', 'PEM CA bundle that verifies https:// servers')
    .option(
      '--token-file <file>',
      "bearer token for Peerscope's own reads, and for client requests that bring no Authorization (re-read when it changes)",
    )
    .addOption(
      new Option('--listen <host:port>', 'where the local port listens')
        .argParser(parseListen)
        .default({ host: '127.0.0.1', port: 8001 }, '127.0.0.1:8001'),
    )
    .addOption(
      new Option('--policy <policy>', 'which server a load balancer would hand each request to: round-robin, random or pin:NAME')
        .argParser(parsePolicyOption)
        .default({ kind: 'round-robin' }, 'round-robin'),
    )
    .addOption(
      new Option('--discovery <mode>', "peer-aggregated (merge /apis across servers) or nopeer (the handling server's own)")
        .argParser(parseDiscoveryMode)
        .default('peer-aggregated', 'peer-aggregated'),
    )
    .option('--faithful', FAITHFUL_HELP, false)
    .option('--max-events <n>', 'routing events kept in memory', parsePositiveInt, 10_000)
    .addOption(
      new Option(
        '--audit-log <[server=]file>',
        "follow a server's audit log and count what it answered in /.peerscope/metrics (peerscope_cluster_*; repeat for each server; as `peerscope audit` reads it)",
      )
        .argParser(collectAuditInputSpec)
        .default([], 'none'),
    );
  addPortFilterOptions(command)
    .option('--ui', 'also serve the UI on a loopback port and print its URL (browser mode)', false)
    .option('--record <file>', 'record the session into this new file (peerscope recording open|report reads it)')
    .option(
      '--server-refresh <seconds>',
      'with --kubeconfig: find the apiservers again this often (new ones join, departed ones show as gone); 0 = never',
      parseSeconds,
      DEFAULT_SERVER_REFRESH_MS / 1000,
    )
    .option('--peer-refresh <seconds>', 'renamed --server-refresh (the old name still works)', parseSeconds)
    .option(
      '--server-metrics <seconds>',
      "read each real apiserver's /metrics this often for its own Mixed Version Proxy's counters (shown per server in the UI and /.peerscope/metrics); 0 = never",
      parseSeconds,
      15,
    )
    .option(
      '--upstream-connect-timeout <seconds>',
      'give up connecting to an apiserver (TCP and TLS) after this long: 503 PEERSCOPE_ERR_UPSTREAM_CONNECT_TIMEOUT; 0 = never',
      parseSeconds,
      DEFAULT_CONNECT_TIMEOUT_MS / 1000,
    )
    .option(
      '--upstream-headers-timeout <seconds>',
      "give up waiting for an apiserver's response headers after this long: 503 PEERSCOPE_ERR_UPSTREAM_HEADERS_TIMEOUT (watches and follows send theirs at once); 0 = never",
      parseSeconds,
      DEFAULT_HEADERS_TIMEOUT_MS / 1000,
    )
    .addHelpText(
      'after',
      `\nEnvironment:\n  PEERSCOPE_HEAP_GROWING_PERCENT  how far V8 lets the old generation grow past what is live, in percent (default ${HEAP_GROWING_PERCENT}; 0 = V8's own heuristic)`,
    )
    .action(async (flags: ServeFlags) => {
      const serverRefresh = serverRefreshOf(flags, command.getOptionValueSource('serverRefresh') === 'cli');
      let servers: ServerConfig[];
      let context: string | undefined;
      let ownIdentity: string | (() => string | undefined) | undefined;
      let serverSource: ServerSource | undefined;
      if (flags.kubeconfig || flags.context || flags.server.length === 0) {
        const found = await serversFromKubeconfig({
          ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}),
          ...(flags.context ? { context: flags.context } : {}),
          overrides: flags.server,
        }).catch((err: Error) => fail(err.message));
        for (const w of found.warnings) process.stderr.write(`peerscope: warning: ${w}\n`);
        for (const n of found.notes) process.stderr.write(`peerscope: ${n}\n`);
        servers = found.servers;
        context = found.kubeconfig.contextName;
        ownIdentity = found.kubeconfig.userName || undefined;
        serverSource = found.source;
      } else {
        const given = serversFromFlags(flags);
        const tokens = given.tokens;
        // The impact report names requests sent with the port's token as a client bringing it would be.
        if (tokens)
          ownIdentity = () => {
            const token = tokens.token();
            return token ? identityOf(`Bearer ${token}`, undefined) : undefined;
          };
        servers = given.servers;
      }
      const auditLogs = await auditInputsOf(flags.auditLog, servers);
      const auditWebhook = await auditWebhookOf(flags).catch((err: Error) => fail(err.message));
      for (const t of flags.auditWebhookToken)
        if (!servers.some((s) => s.name === t.server))
          process.stderr.write(
            `peerscope: warning: --audit-webhook-token ${t.server}: no server is named so now (servers: ${servers.map((s) => s.name).join(', ')}); its events are counted as not judged until one is\n`,
          );
      const policy = flags.policy;
      if (policy.kind === 'pin' && !servers.some((s) => s.name === policy.server)) {
        fail(`--policy ${formatPolicy(policy)}: no server is named "${policy.server}" (servers: ${servers.map((s) => s.name).join(', ')})`);
      }
      if (flags.record) checkNewRecording(flags.record, fail);
      const core = createCore({
        ...(flags.record
          ? { record: { file: flags.record, host: 'serve', onError: (err) => console.error(`peerscope: ${err.message}`) } }
          : {}),
        servers,
        listen: flags.listen,
        policy: flags.policy,
        discoveryMode: flags.discovery,
        faithful: flags.faithful,
        maxEvents: flags.maxEvents,
        ownMetricsIntervalMs: flags.serverMetrics * 1000,
        upstream: { connectTimeoutMs: flags.upstreamConnectTimeout * 1000, headersTimeoutMs: flags.upstreamHeadersTimeout * 1000 },
        ...portFilters(flags),
        ...(auditLogs.length > 0 ? { auditLogs } : {}),
        ...(auditWebhook
          ? {
              auditWebhook: { ...auditWebhook, onProblem: webhookProblemLog((line) => process.stderr.write(line)) },
            }
          : {}),
        snapshotSource: context ? 'kubeconfig' : 'servers',
        ...(ownIdentity ? { ownIdentity } : {}),
        ...(context ? { context } : {}),
        ...(serverSource ? { serverSource, serverRefreshIntervalMs: serverRefresh * 1000, onServerRefresh: reportRefresh() } : {}),
      });
      core.servers.on('membership', (id, change) => {
        const s = core.servers.status(id);
        const name = s ? namedForLog(s) : id;
        if (change === 'added') console.error(`peerscope: apiserver ${name} joined: ${s?.url ?? ''} (found by ${s?.source ?? '?'})`);
        else if (change === 'gone')
          console.error(
            `peerscope: apiserver ${name} is gone: ${s?.gone?.reason ?? ''}; never routed to, listed as gone until ${s?.gone ? new Date(s.gone.removeAt).toISOString() : '?'}`,
          );
        else if (change === 'back') console.error(`peerscope: apiserver ${name} is back: ${s?.url ?? ''}`);
        else if (change === 'removed') console.error(`peerscope: apiserver ${name} removed from the list (gone)`);
        else console.error(`peerscope: apiserver ${name} is now at ${s?.url ?? ''}`);
      });
      // E.g. the CRD watch was refused: discovery is then re-read on the period only.
      core.servers.on('notice', (line) => console.error(`peerscope: ${line}`));
      let address;
      try {
        address = await core.start();
      } catch (err) {
        await core.close(0);
        fail(
          `cannot listen on ${flags.listen.host}:${flags.listen.port}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        );
      }
      console.log(`Starting to serve on ${address.host}:${address.port}`);
      if (flags.record) console.error(`peerscope: recording to ${flags.record}`);
      const webhookUrl = core.auditWebhookUrl();
      if (webhookUrl) console.error(`peerscope: receiving audit events on ${webhookUrl}`);
      for (const s of core.serverStatuses()) {
        console.error(
          `peerscope: ${namedForLog(s)} ${s.url} ${s.health}${s.gitVersion ? ` ${s.gitVersion}` : ''}, ${s.discovery.gvrCount} GVRs${s.lastError ? ` (${s.lastError})` : ''}`,
        );
      }
      for (const s of core.serverStatuses())
        if (s.ownMvp && s.ownMvp.verdict !== 'unknown') console.error(`peerscope: ${s.ownMvp.summary}`);
      for (const line of reachabilityLines(core.serverStatuses())) console.error(`peerscope: ${line}`);
      const ui = flags.ui ? await startUiHost({ core }) : undefined;
      if (ui) console.log(`UI: ${ui.url}`);
      onShutdown(async () => {
        await ui?.close();
        await core.close();
      });
    });
  // Listed last in --help: the receiver is a listener of its own beside the port.
  addAuditWebhookOptions(command);
}

/** Logs a refresh's warnings when they differ from the last refresh's (a steady RBAC gap is said once). */
function reportRefresh(): (r: ServerRefresh) => void {
  let last = '';
  return (r) => {
    const lines = r.ok ? r.update.warnings.map((w) => `warning: ${w}`) : [`warning: finding the apiservers again failed: ${r.error}`];
    const text = lines.join('\n');
    if (text && text !== last) for (const l of lines) process.stderr.write(`peerscope: ${l}\n`);
    last = text;
  };
}

/** The audit logs to follow, each matched to a server; exits 2 naming a file that matches none or cannot be read. */
async function auditInputsOf(specs: readonly AuditInputSpec[], servers: readonly ServerConfig[]): Promise<AuditInput[]> {
  let inputs: AuditInput[];
  try {
    inputs = await matchAuditInputs(specs, servers);
  } catch (err) {
    return fail((err as Error).message);
  }
  for (const input of inputs) {
    if (!servers.some((s) => s.name === input.server))
      fail(
        `--audit-log ${input.server}=${input.file}: no server is named "${input.server}" (servers: ${servers.map((s) => s.name).join(', ')})`,
      );
    try {
      accessSync(input.file, constants.R_OK);
    } catch (err) {
      fail(`--audit-log ${input.file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  }
  return inputs;
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`"${value}" is not a number of seconds (0 or more)`);
  return n;
}

function fail(message: string): never {
  process.stderr.write(`peerscope: ${message}\n`);
  process.exit(2);
}

/**
 * The seconds between two searches for the servers: --server-refresh, or its old name --peer-refresh
 * ("peer" is kept for KEP-4020's sense: not the handling server), said to be renamed. Both given is
 * one too many.
 */
export function serverRefreshOf(flags: Pick<ServeFlags, 'serverRefresh' | 'peerRefresh'>, serverRefreshGiven: boolean): number {
  if (flags.peerRefresh === undefined) return flags.serverRefresh;
  if (serverRefreshGiven) fail('give --server-refresh only: --peer-refresh is its old name');
  process.stderr.write('peerscope: --peer-refresh is renamed --server-refresh; the old name still works\n');
  return flags.peerRefresh;
}

/** A server in a log line: its host name, the identity beside it where they differ ("cp-1 (apiserver-fa6…)"). */
function namedForLog(s: { readonly name: string; readonly displayName?: string }): string {
  const shown = shownName(s);
  return shown === s.name ? s.name : `${shown} (${s.name})`;
}
