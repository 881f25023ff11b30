// The routing decision: one pure function applying the spec's rules in order (R2–R8, P6, P7) to a
// classified request, the handling server, the route table and what is known of each peer's health.
import type { PeerHealth } from '../../contract/peers.js';
import { negotiateDiscovery } from '../discovery/negotiate.js';
import type { RequestInfo } from './request-info.js';
import type { RouteTable } from './route-table.js';

export type DiscoveryMode = 'peer-aggregated' | 'nopeer';

export interface PeerView {
  health(name: string): PeerHealth;
  /** Whether an address is known for the server (spec R7); servers given by URL always have one. */
  hasAddress?(name: string): boolean;
  /** Last error seen by the health probe, to explain a 503. */
  lastError?(name: string): string | undefined;
}

export interface DecisionInput {
  readonly info: RequestInfo;
  readonly handling: string;
  readonly table: RouteTable;
  readonly peers: PeerView;
  /** The request's x-kubernetes-peer-proxied header (R3). */
  readonly peerProxiedHeader: string | undefined;
  readonly accept: string | undefined;
  readonly discoveryMode: DiscoveryMode;
  readonly random?: () => number;
}

export type Decision =
  | { readonly outcome: 'local'; readonly target: string; readonly reason: 'serves' | 'loop-guard' }
  | { readonly outcome: 'rerouted'; readonly target: string; readonly candidates: readonly string[] }
  | { readonly outcome: 'notfound'; readonly target: string }
  | { readonly outcome: 'unavailable'; readonly message: string; readonly candidates: readonly string[] }
  | { readonly outcome: 'discovery-merged'; readonly target: null }
  | { readonly outcome: 'discovery-own'; readonly target: string }
  | { readonly outcome: 'non-resource'; readonly target: string };

/** R7's message, verbatim from kube-apiserver. */
export const NO_ADDRESS_MESSAGE = 'Error getting ip and port info of the remote server while proxying';
/** R10's log line, which Peerscope uses as its 503 Status message (P5). */
export const PROXY_ERROR_PREFIX = 'Error while proxying request to destination apiserver: ';

export function decide(input: DecisionInput): Decision {
  const { info, handling, table, peers } = input;
  if (!info.isResourceRequest) {
    // D1/P6: only /apis and /api can be aggregated discovery; everything else is H's own.
    const p = info.path;
    if (p === '/apis' || p === '/apis/' || p === '/api' || p === '/api/') {
      const neg = negotiateDiscovery(input.accept);
      if (neg.kind === 'aggregated' && neg.version === 'v2') {
        const own = neg.profile === 'nopeer' || input.discoveryMode === 'nopeer' || p.startsWith('/api/') || p === '/api';
        return own ? { outcome: 'discovery-own', target: handling } : { outcome: 'discovery-merged', target: null };
      }
    }
    return { outcome: 'non-resource', target: handling };
  }
  // R3 / P7: a request already proxied once is served where it lands, never proxied again.
  if (input.peerProxiedHeader === 'true') return { outcome: 'local', target: handling, reason: 'loop-guard' };
  const key = `${info.apiGroup}/${info.apiVersion}/${info.resource}`;
  const servers = table.serversForKey(key);
  // R5: exact group, version and resource; subresource, namespace, name and verb do not matter.
  if (servers.includes(handling)) return { outcome: 'local', target: handling, reason: 'serves' };
  // R6: CRD and aggregated group-versions known to H are never proxied.
  if (servers.length === 0 || table.isExcluded(handling, info.apiGroup, info.apiVersion)) return { outcome: 'notfound', target: handling };
  const candidates = servers.filter((s) => s !== handling);
  if (candidates.length === 0) return { outcome: 'notfound', target: handling };
  // R7: a candidate without a resolvable address is dropped; none left is a 503.
  const addressed = peers.hasAddress ? candidates.filter((s) => peers.hasAddress!(s)) : candidates;
  if (addressed.length === 0) return { outcome: 'unavailable', message: NO_ADDRESS_MESSAGE, candidates };
  // Peerscope (P2): like a load balancer with health checks, prefer candidates the probe does not
  // see down. When every candidate is known down, the forward would fail: answer R10's 503 now.
  const healthy = addressed.filter((s) => isEligible(peers.health(s)));
  if (healthy.length === 0) {
    const causes = addressed.map((s) => `apiserver "${s}" is ${peers.health(s)}${peers.lastError?.(s) ? ` (${peers.lastError(s)})` : ''}`);
    return { outcome: 'unavailable', message: PROXY_ERROR_PREFIX + causes.join('; '), candidates: addressed };
  }
  // R8: uniformly at random, no preference, no stickiness.
  const random = input.random ?? Math.random;
  const target = healthy[Math.min(healthy.length - 1, Math.floor(random() * healthy.length))] as string;
  return { outcome: 'rerouted', target, candidates: healthy };
}

/** Known-down peers are skipped; a peer not probed yet is tried (its forward reports the failure). */
function isEligible(h: PeerHealth): boolean {
  return h === 'ready' || h === 'unknown';
}
