// A real cluster behind the local port: every apiserver found from a kubeconfig, with its credentials,
// composed for hosts that switch clusters at run time (the desktop app's "Open kubeconfig…").
import { PeerscopeError } from '../../contract/errors.js';
import { readFileSync, rmSync } from 'node:fs';
import { parse } from 'yaml';
import { serversFromKubeconfig } from '../../engine/cluster/from-kubeconfig.js';
import { createCoreService, type CoreService } from '../service/service.js';
import { createCore, type Core, type ListenAddress, type PortFilters } from '../../engine/core.js';
import type { DiscoveryMode } from '../../contract/settings.js';
import type { HandlingPolicy } from '../../engine/proxy/policy.js';
import { checkAuditInputs, resolveAuditInputs, type AuditInputSpec } from '../../engine/audit/inputs.js';
import type { AuditWebhookOptions } from '../../engine/audit/webhook/receiver.js';

export interface ClusterSessionOptions {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly listen?: { readonly host: string; readonly port: number };
  /** When the listen port is taken, listen on a free port instead of failing. */
  readonly anyPortIfBusy?: boolean;
  readonly policy?: HandlingPolicy;
  readonly discoveryMode?: DiscoveryMode;
  /** What the port refuses (--accept-origins, --reject-paths, --reject-methods); default: the port's defaults. */
  readonly filters?: PortFilters;
  /** The servers' own MVP exactly (createCore's `faithful`, rule P8 off). */
  readonly faithful?: boolean;
  /** How often the apiservers are found again (--server-refresh); default: the core's (30 s). */
  readonly serverRefreshIntervalMs?: number;
  /**
   * The servers' audit logs (the cluster source): `SERVER=FILE`, or a FILE whose name names one of the
   * servers found; a FILE that names none or several rejects before the port listens.
   */
  readonly auditLogs?: readonly AuditInputSpec[];
  /** Default true: followed as they grow; false: read once, with progress (getOverview().cluster.read). */
  readonly auditFollow?: boolean;
  /** A receiver of the servers' audit webhooks (the cluster source, live). */
  readonly auditWebhook?: Omit<AuditWebhookOptions, 'onRecord'>;
  /**
   * Record the session into this new file, or the file named for the context when the port starts
   * (the app: its recordings folder, recordings-library.ts).
   */
  readonly record?: { readonly file: string | ((contextName: string) => string); readonly onError?: (err: Error) => void };
}

export interface ClusterSession {
  readonly kind: 'cluster';
  readonly core: Core;
  readonly service: CoreService;
  readonly address: ListenAddress;
  readonly contextName: string;
  /** What the operator should know (RBAC fallbacks, proxies); never credentials. */
  readonly warnings: readonly string[];
  close(): Promise<void>;
}

/** A cluster whose kubeconfig is loaded and whose apiservers are found, before the port listens. */
export interface PreparedCluster {
  readonly contextName: string;
  readonly serverCount: number;
  readonly warnings: readonly string[];
  /** Starts the port in front of the servers found. */
  start(): Promise<ClusterSession>;
}

/**
 * Loads the kubeconfig and finds the cluster's apiservers, without listening yet: a host can check that
 * the cluster is reachable before it gives up the port of the session it runs. A broken kubeconfig
 * rejects with the error that names its file and line; nothing is left running.
 */
export async function prepareClusterSession(options: ClusterSessionOptions): Promise<PreparedCluster> {
  const found = await serversFromKubeconfig({
    ...(options.kubeconfig ? { kubeconfig: options.kubeconfig } : {}),
    ...(options.context ? { context: options.context } : {}),
  });
  const contextName = found.kubeconfig.contextName;
  // Checked here, before a host gives up its running session: a file matched to no server is an error now.
  // A file that cannot be read is named as such, before anything is matched or read.
  if (options.auditLogs) checkAuditInputs(options.auditLogs, options.auditFollow ?? true);
  const auditLogs = options.auditLogs?.length ? resolveAuditInputs(options.auditLogs, found.servers) : undefined;
  return {
    contextName,
    serverCount: found.servers.length,
    warnings: found.warnings,
    async start() {
      const listen = options.listen ?? { host: '127.0.0.1', port: 8001 };
      const file = options.record?.file;
      const record = file === undefined ? undefined : { ...options.record, file: typeof file === 'string' ? file : file(contextName) };
      try {
        return await startOn(listen, record);
      } catch (err) {
        if (!options.anyPortIfBusy || ((err as Error).cause as NodeJS.ErrnoException | undefined)?.code !== 'EADDRINUSE') throw err;
        return startOn({ host: listen.host, port: 0 }, record);
      }
    },
  };

  async function startOn(
    listen: { host: string; port: number },
    record: { readonly file: string; readonly onError?: (err: Error) => void } | undefined,
  ): Promise<ClusterSession> {
    const core = createCore({
      servers: found.servers,
      listen,
      ...(options.policy ? { policy: options.policy } : {}),
      ...(options.discoveryMode ? { discoveryMode: options.discoveryMode } : {}),
      ...options.filters,
      ...(options.faithful ? { faithful: true } : {}),
      snapshotSource: 'kubeconfig',
      context: contextName,
      // Requests that bring no credential get the kubeconfig's: the impact report names them by its user.
      ...(found.kubeconfig.userName ? { ownIdentity: found.kubeconfig.userName } : {}),
      // The apiservers are found again on a period (30 s by default): new ones join, departed ones show as gone.
      serverSource: found.source,
      ...(options.serverRefreshIntervalMs !== undefined ? { serverRefreshIntervalMs: options.serverRefreshIntervalMs } : {}),
      ...(auditLogs ? { auditLogs, ...(options.auditFollow !== undefined ? { auditFollow: options.auditFollow } : {}) } : {}),
      ...(options.auditWebhook ? { auditWebhook: options.auditWebhook } : {}),
      ...(record ? { record: { ...record, host: 'app' } } : {}),
    });
    let address: ListenAddress;
    try {
      address = await core.start();
    } catch (err) {
      await core.close(0);
      // A retry on another port records into the same file, anew.
      if (record) for (const f of ['', '-wal', '-shm']) rmSync(`${record.file}${f}`, { force: true });
      throw new PeerscopeError(
        'PEERSCOPE_ERR_LISTEN',
        `cannot listen on ${listen.host}:${listen.port}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        { cause: err },
      );
    }
    const service = createCoreService(core, { snapshotSource: 'kubeconfig', context: contextName });
    let closing: Promise<void> | undefined;
    return {
      kind: 'cluster',
      core,
      service,
      address,
      contextName,
      warnings: found.warnings,
      close() {
        closing ??= (async () => {
          service.close();
          await core.close(2_000);
        })();
        return closing;
      },
    };
  }
}

export async function startClusterSession(options: ClusterSessionOptions): Promise<ClusterSession> {
  return (await prepareClusterSession(options)).start();
}

/**
 * The context names of one kubeconfig file and its current-context, for a chooser. Only names are
 * read; a file this cannot read yields none, and loading it then gives the precise error.
 */
export function kubeconfigContextNames(file: string): { readonly names: string[]; readonly current?: string } {
  try {
    const doc = parse(readFileSync(file, 'utf8')) as { contexts?: { name?: unknown }[]; 'current-context'?: unknown } | null;
    const names = (doc?.contexts ?? []).map((c) => c?.name).filter((n): n is string => typeof n === 'string');
    const current = typeof doc?.['current-context'] === 'string' ? doc['current-context'] : undefined;
    return current ? { names, current } : { names };
  } catch {
    return { names: [] };
  }
}
