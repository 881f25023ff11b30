// What `peerscope serve` reads before it starts the port: the servers (a kubeconfig's cluster, or
// the --server flags), the audit logs matched to them, and the pinned server; each bad input exits 2
// naming the flag.
import { checkAuditInputs, matchAuditInputs, type AuditInput, type AuditInputSpec } from '../../engine/audit/index.js';
import type { ServerConfig, ServerSource } from '../../engine/cluster/server-config.js';
import { ServerNames } from '../../engine/cluster/server-names.js';
import type { HandlingPolicy } from '../../engine/proxy/policy.js';
import { identityOf } from '../../engine/telemetry/client-identity.js';
import { resolvePin } from '../session/pin-target.js';
import { serversFromFlags } from './server-flags.js';
import type { ServeFlags } from './serve-flags.js';
import { fail } from './usage.js';

export interface ServeTargets {
  readonly servers: ServerConfig[];
  /** The kubeconfig context the servers were found from; absent with --server alone. */
  readonly context?: string;
  /** Who the port's own credential is, for the upgrade-impact report. */
  readonly ownIdentity?: string | (() => string | undefined);
  /** Where the servers are found again (a kubeconfig's cluster). */
  readonly serverSource?: ServerSource;
}

/** The servers to route to: found from a kubeconfig (warnings and notes said), or named by --server. */
export async function serveTargets(flags: ServeFlags): Promise<ServeTargets> {
  if (flags.kubeconfig || flags.context || flags.server.length === 0) {
    // Loaded only here: a port given its servers by --server never reads a kubeconfig (nor loads YAML).
    const { serversFromKubeconfig } = await import('../../engine/cluster/from-kubeconfig.js');
    const found = await serversFromKubeconfig({
      ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}),
      ...(flags.context ? { context: flags.context } : {}),
      overrides: flags.server,
    }).catch((err: Error) =>
      // With no flag naming the servers, say both ways of naming them.
      fail(
        flags.kubeconfig || flags.context
          ? err.message
          : `${err.message}; give --kubeconfig FILE, or name each apiserver with --server NAME=URL`,
      ),
    );
    for (const w of found.warnings) process.stderr.write(`peerscope: warning: ${w}\n`);
    for (const n of found.notes) process.stderr.write(`peerscope: ${n}\n`);
    const ownIdentity = found.kubeconfig.userName || undefined;
    return {
      servers: found.servers,
      context: found.kubeconfig.contextName,
      ...(ownIdentity ? { ownIdentity } : {}),
      serverSource: found.source,
    };
  }
  const given = serversFromFlags(flags);
  const tokens = given.tokens;
  // The impact report names requests sent with the port's token as a client bringing it would be.
  if (!tokens) return { servers: given.servers };
  return {
    servers: given.servers,
    ownIdentity: () => {
      const token = tokens.token();
      return token ? identityOf(`Bearer ${token}`, undefined) : undefined;
    },
  };
}

/** The audit logs to follow, each matched to a server; exits 2 naming a file that matches none or cannot be read. */
export async function auditInputsOf(specs: readonly AuditInputSpec[], servers: readonly ServerConfig[]): Promise<AuditInput[]> {
  let inputs: AuditInput[];
  try {
    checkAuditInputs(specs, true);
    inputs = await matchAuditInputs(specs, servers);
  } catch (err) {
    return fail((err as Error).message);
  }
  for (const input of inputs) {
    if (!servers.some((s) => s.name === input.server))
      fail(
        `--audit-log ${input.server}=${input.file}: no server is named "${input.server}" (servers: ${new ServerNames(servers).known()})`,
      );
  }
  return inputs;
}

/** The policy, a pin named by host name or lease name resolved: the picker keys servers by identity. */
export function policyOf(policy: HandlingPolicy, servers: readonly ServerConfig[]): HandlingPolicy {
  try {
    return resolvePin(policy, servers);
  } catch (err) {
    return fail((err as Error).message);
  }
}
