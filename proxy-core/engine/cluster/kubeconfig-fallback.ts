// Servers out of reach by design: on managed clusters and private subnets the identity leases and the
// default/kubernetes endpoints name addresses the operator's machine cannot reach; only the
// kubeconfig's server (a load balancer, or one server's public address) answers. Routing only to the
// advertised addresses would make a port that answers 503 to everything, so while none of them
// answers the kubeconfig's server joins the servers (source "kubeconfig") and carries the traffic;
// the advertised ones stay listed, each shown unreachable with its cause. Once one of them answers,
// the kubeconfig's server leaves again (a load balancer in the list would count its servers twice).
import { classifyUnreachable, type Unreachable } from './reachability.js';
import type { ServerConfig, ServerReader } from './server-config.js';

/** A reader that can be closed after one check (a AgentServerReader). */
export interface ClosableReader extends ServerReader {
  close(): Promise<void>;
}

/** True when the kubeconfig's server may stand in for `found`: they exist and its address is none of theirs. */
export function fallbackApplies(kubeconfigServer: string, found: readonly { readonly url: string; readonly source?: string }[]): boolean {
  const host = new URL(kubeconfigServer).host;
  const advertised = found.filter((s) => s.source === 'lease' || s.source === 'endpoints');
  return advertised.length > 0 && !advertised.some((s) => new URL(s.url).host === host);
}

/**
 * Tries each server once on a connection of its own (a readiness read: any HTTP answer counts as an
 * answer). Returns the names that answered and why each other did not.
 */
export async function checkAnswering(
  servers: readonly ServerConfig[],
  clientOf: (server: ServerConfig) => ClosableReader,
): Promise<{ answering: string[]; unreachable: Map<string, Unreachable> }> {
  const answering: string[] = [];
  const unreachable = new Map<string, Unreachable>();
  await Promise.all(
    servers.map(async (s) => {
      const client = clientOf(s);
      try {
        await (client.probe ? client.probe('/readyz') : client.get('/readyz'));
        answering.push(s.name);
      } catch (err) {
        unreachable.set(s.name, classifyUnreachable(err));
      } finally {
        await client.close().catch(() => undefined);
      }
    }),
  );
  return { answering, unreachable };
}

/** The warning that says the kubeconfig's server carries the traffic, with one cause per advertised server. */
export function fallbackWarning(kubeconfigServer: string, unreachable: ReadonlyMap<string, Unreachable>): string {
  const causes = [...new Set([...unreachable.values()].map((u) => u.words))];
  return `none of the ${unreachable.size} apiserver address(es) the cluster advertises (identity leases, default/kubernetes endpoints) answers from here (${causes.join('; ')}); the port routes through the kubeconfig's server ${kubeconfigServer} until one does`;
}
