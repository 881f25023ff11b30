// The flags of `peerscope serve` beyond the port's own (port-options.ts, port-filter-options.ts) and
// the audit webhook's (audit-webhook-flags.ts): where the servers are found, what is followed and
// recorded, the periods and the data path's timeouts.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { collectAuditInputSpec, type AuditInputSpec } from '../../engine/audit/index.js';
import type { DiscoveryMode } from '../../contract/settings.js';
import { DEFAULT_SERVER_REFRESH_MS } from '../../engine/core.js';
import type { HandlingPolicy } from '../../engine/proxy/policy.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_HEADERS_TIMEOUT_MS } from '../../engine/upstream/pool.js';
import { HEAP_GROWING_PERCENT } from '../../engine/util/heap-growth.js';
import type { AuditWebhookFlags } from './audit-webhook-flags.js';
import { parseNameEqualsUrl, parsePositiveInt } from './options.js';
import { addPortFilterOptions, type PortFilterFlags } from './port-filter-options.js';
import { addPortOptions } from './port-options.js';
import { fail } from './usage.js';

export interface ServeFlags extends PortFilterFlags, AuditWebhookFlags {
  auditLog: AuditInputSpec[];
  server: { name: string; url: string }[];
  kubeconfig?: string;
  context?: string;
  ca?: string;
  tokenFile?: string;
  listen: { host: string; port: number };
  policy: HandlingPolicy;
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

/** Where the servers are found: --server, or a kubeconfig's cluster. */
export function addServerOptions(command: Command): Command {
  return command
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
    );
}

/** The port's options, what it keeps, follows and records, then the periods and timeouts. */
export function addServeOptions(command: Command): Command {
  addPortOptions(command, { discovery: true })
    .option('--max-events <n>', 'routing events kept in memory', parsePositiveInt, 10_000)
    .addOption(
      new Option(
        '--audit-log <[server=]file>',
        "follow a server's audit log and count what it answered in /.peerscope/metrics (peerscope_cluster_*; repeat for each server; as `peerscope audit` reads it)",
      )
        .argParser(collectAuditInputSpec)
        .default([], 'none'),
    );
  return addPortFilterOptions(command)
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
    );
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`"${value}" is not a number of seconds (0 or more)`);
  return n;
}

/**
 * The seconds between two searches for the servers: --server-refresh, or its old name --peer-refresh
 * ("peer" is kept for KEP-4020's sense: not the handling server), said to be renamed. Both given is
 * one too many.
 */
export function serverRefreshOf(flags: Pick<ServeFlags, 'serverRefresh' | 'peerRefresh'>, serverRefreshGiven: boolean): number {
  if (flags.peerRefresh === undefined) return flags.serverRefresh;
  if (serverRefreshGiven) fail('--peer-refresh is the old name of --server-refresh; give --server-refresh only');
  process.stderr.write('peerscope: --peer-refresh is renamed --server-refresh; the old name still works\n');
  return flags.peerRefresh;
}
