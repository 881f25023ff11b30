// The routing decision: one pure function applying the rules in order (R2–R8, D1, P6, P7, P8) to
// a classified request, the handling server H, the route table and what is known of each peer.
// P8 (off with `faithful`) is the only rule that sends a non-resource request anywhere but H.
//
// Candidate and health model (rule §4.4, P1, P2; cases C5, C6, C7, C40):
// - The route table holds every server whose discovery was read at least once; a server that fails
//   a later read keeps its last document (server-set). So a peer that went down *after* the last sync
//   is still a candidate (C5, C40: the forward fails → R10 503), and a peer never read is absent
//   (C7: not a candidate → R6 notfound, H answers its own 404).
// - R7: a candidate without an address is dropped; none left → 503 with R7's message (C6).
// - Kubernetes picks among the rest with no regard to health (R8). Peerscope emulates a load balancer
//   with health checks (P2), so it prefers candidates whose probe says `ready` (or has not run yet:
//   `unknown`). A `not-ready` / `draining` candidate still answers requests (only its /readyz fails),
//   so it is chosen only when no preferred candidate exists — there Kubernetes would reroute to it
//   too, and an answer beats a 503. A candidate seen `unreachable` (the probe or the last forward
//   could not connect) is never chosen; when every candidate is unreachable the forward would fail,
//   so the decision is R10's 503 at once (the same outcome as C5, without waiting on a connect).
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { serverLabel, type HealthState } from '../../contract/servers.js';
import type { DiscoveryMode } from '../../contract/settings.js';
import { takesPlainJson, negotiateDiscovery } from '../discovery/negotiate.js';
import { MEDIA } from '../discovery/types.js';
import { groupPathOf } from './discovery-path.js';
import { negotiateOpenApiV2, OPENAPI_V2_PATH } from '../discovery/openapi-v2-http.js';
import type { RequestInfo } from './request-info.js';
import type { RouteTable } from './route-table.js';
import { PROXY_ERROR_PREFIX } from '../util/status.js';

export { PROXY_ERROR_PREFIX };

/** What the decision needs to know of each server; the server set implements it. */
export interface ServerView {
  health(name: string): HealthState;
  /** Whether an address is known for the server (rule R7); absent: every server has one. */
  hasAddress?(name: string): boolean;
  /** Last error seen by the health probe or a forward, to explain a 503. */
  lastError?(name: string): string | undefined;
  /** How a 503 names the server (serverLabel: host name and identity); absent: its identity, quoted. */
  label?(name: string): string;
}

export interface DecisionInput {
  readonly info: RequestInfo;
  /** H: the server the handling-server policy picked (P1). */
  readonly handling: string;
  readonly table: RouteTable;
  /** Asked only about reroute candidates, never H: the peers, in KEP-4020's sense. */
  readonly peers: ServerView;
  /** The request's x-kubernetes-peer-proxied header (R3). */
  readonly peerProxiedHeader: string | undefined;
  readonly accept: string | undefined;
  readonly discoveryMode: DiscoveryMode;
  /**
   * `--faithful`: the servers' own MVP exactly, every non-resource request but aggregated /apis H's own.
   * Otherwise (the default) P8: legacy /apis merged, per-group discovery and OpenAPI from a server that serves it.
   */
  readonly faithful?: boolean;
  /** Uniform in [0, 1); injected so tests are deterministic (R8). */
  readonly random?: () => number;
}

/** Why no server can answer: R7 (no candidate has an address) or R10 (every candidate is unreachable). */
export type UnavailableReason = 'no-address' | 'unreachable';

/** The decision, with what the port does with it: where to send the request and what to change on it. */
export type Decision =
  | { readonly outcome: 'local'; readonly target: string; readonly reason: 'serves' | 'loop-guard' }
  | {
      readonly outcome: 'rerouted';
      readonly target: string;
      readonly candidates: readonly string[];
      /** Added to the rerouted request (R8): REROUTE_HEADERS. */
      readonly headers: Readonly<Record<string, string>>;
    }
  | { readonly outcome: 'notfound'; readonly target: string }
  | {
      readonly outcome: 'unavailable';
      readonly reason: UnavailableReason;
      readonly message: string;
      readonly candidates: readonly string[];
    }
  | { readonly outcome: 'discovery-merged'; readonly target: null }
  | {
      readonly outcome: 'discovery-own';
      readonly target: string;
      /** The Accept to send in place of the client's (P6: the nopeer mode asks H for its own document); undefined: the client's. */
      readonly accept: string | undefined;
    }
  | { readonly outcome: 'non-resource'; readonly target: string };

/** R7's message, verbatim from kube-apiserver. */
export const NO_ADDRESS_MESSAGE = 'Error getting ip and port info of the remote server while proxying';
/** R3: the header a proxying server adds; only this exact value stops proxying. */
export const PEER_PROXIED_HEADER = 'x-kubernetes-peer-proxied';
/** What a reroute adds to the request (R8); one frozen object, never mutated. */
export const REROUTE_HEADERS: Readonly<Record<string, string>> = Object.freeze({ [PEER_PROXIED_HEADER]: 'true' });

/** A ServerView over plain facts, for hosts and tests that hold them in a Map. */
export function serverViewOf(
  facts: ReadonlyMap<string, { readonly health: HealthState; readonly address?: boolean; readonly lastError?: string }>,
): ServerView {
  return {
    health: (name) => facts.get(name)?.health ?? 'unknown',
    hasAddress: (name) => facts.get(name)?.address ?? false,
    lastError: (name) => facts.get(name)?.lastError,
  };
}

export function decide(input: DecisionInput): Decision {
  const { info, handling, table } = input;
  // R2: non-resource requests are H's own; among them only /api and /apis can be aggregated discovery.
  if (!info.isResourceRequest) return decideNonResource(input);
  // R3 / P7: a request already proxied once is served where it lands, never proxied again.
  if (input.peerProxiedHeader === 'true') return { outcome: 'local', target: handling, reason: 'loop-guard' };
  const servers = table.serversForKey(`${info.apiGroup}/${info.apiVersion}/${info.resource}`);
  // R5: exact group, version and resource; subresource, namespace, name and verb do not matter.
  if (servers.includes(handling)) return { outcome: 'local', target: handling, reason: 'serves' };
  // R6: CRD and aggregated group-versions are removed from every peer entry; nobody else → H's 404.
  if (servers.length === 0 || table.excludes(info.apiGroup, info.apiVersion)) return { outcome: 'notfound', target: handling };
  return decideReroute(input, servers);
}

function decideNonResource(input: DecisionInput): Decision {
  const { info, handling } = input;
  const p = info.path;
  const isApis = p === '/apis' || p === '/apis/';
  if ((isApis || p === '/api' || p === '/api/') && (info.verb === 'get' || info.verb === 'head')) {
    const neg = negotiateDiscovery(input.accept);
    // D1: only aggregated v2 is answered by discovery handlers Peerscope distinguishes; v2beta1 and
    // legacy forms are H's own answer, unchanged (D1.4, D1.5, D3).
    if (neg.kind === 'aggregated' && neg.version === 'v2') {
      // D1.1 / P6: profile=nopeer or the global toggle → H's own; O1: /api is always H's own.
      const own = neg.profile === 'nopeer' || input.discoveryMode === 'nopeer' || !isApis;
      if (!own) return { outcome: 'discovery-merged', target: null };
      return { outcome: 'discovery-own', target: handling, accept: ownAccept(input) };
    }
    // P8: legacy /apis as one cluster's list, when the client takes JSON (the encoding Peerscope writes).
    if (isApis && !input.faithful && neg.kind === 'legacy' && takesPlainJson(input.accept))
      return { outcome: 'discovery-merged', target: null };
  }
  if (!input.faithful && (info.verb === 'get' || info.verb === 'head')) {
    // P8: the OpenAPI v3 index of every group-version any server serves, answered by the port.
    if ((p === '/openapi/v3' || p === '/openapi/v3/') && input.peerProxiedHeader !== 'true' && takesPlainJson(input.accept))
      return { outcome: 'discovery-merged', target: null };
    // P8: one OpenAPI v2 document of every server's paths and definitions, in a form the servers serve.
    if (p === OPENAPI_V2_PATH && input.peerProxiedHeader !== 'true' && negotiateOpenApiV2(input.accept) !== undefined)
      return { outcome: 'discovery-merged', target: null };
    const rerouted = decideGroupPath(input);
    if (rerouted) return rerouted;
  }
  return { outcome: 'non-resource', target: handling };
}

/**
 * P8: legacy `/apis/G`, `/apis/G/V` and OpenAPI v3 `/openapi/v3/apis/G/V` go to a server that serves
 * that group (-version) when H does not, as R8 reroutes a resource request (R3's loop guard holds too).
 * Undefined: H's own, as on the servers' own MVP.
 */
function decideGroupPath(input: DecisionInput): Decision | undefined {
  const { handling, table } = input;
  if (input.peerProxiedHeader === 'true') return undefined;
  const target = groupPathOf(input.info.path);
  if (!target) return undefined;
  // The core group's /api/v1 is served by every kube-apiserver (O1): always H's own.
  if (target.kind !== 'legacy-group' && target.group === '') return undefined;
  const servers =
    target.kind === 'legacy-group' ? table.serversForGroup(target.group) : table.serversForGroupVersion(target.group, target.version);
  if (servers.length === 0 || servers.includes(handling)) return undefined;
  // R6: CRD and aggregated group-versions are H's own to answer (or to proxy to their service).
  if (target.kind !== 'legacy-group' && table.excludes(target.group, target.version)) return undefined;
  const decision = decideReroute(input, servers);
  return decision.outcome === 'notfound' ? undefined : decision;
}

/** In the nopeer mode H is asked for its own document even where H itself runs the mixed version proxy. */
function ownAccept(input: DecisionInput): string | undefined {
  if (input.discoveryMode !== 'nopeer' || (input.accept ?? '').startsWith(MEDIA.v2JsonNoPeer)) return undefined;
  return `${MEDIA.v2JsonNoPeer},${input.accept ?? ''}`;
}

function decideReroute(input: DecisionInput, servers: readonly string[]): Decision {
  const { handling, peers } = input;
  const candidates: string[] = [];
  const preferred: string[] = [];
  const leaving: string[] = [];
  const unreachable: string[] = [];
  for (const s of servers) {
    if (s === handling) continue;
    candidates.push(s);
    // R7: a candidate without a resolvable address is dropped silently.
    if (peers.hasAddress && !peers.hasAddress(s)) continue;
    const health = peers.health(s);
    if (health === 'ready' || health === 'unknown') preferred.push(s);
    // A server gone from the cluster is never chosen either: its 503 names it and why (lastError).
    else if (health === 'unreachable' || health === 'gone') unreachable.push(s);
    else leaving.push(s);
  }
  if (candidates.length === 0) return { outcome: 'notfound', target: handling };
  const random = input.random ?? Math.random;
  const pool = preferred.length > 0 ? preferred : leaving;
  if (pool.length > 0) {
    // R8: uniformly at random among the pool, no stickiness, no retry.
    return { outcome: 'rerouted', target: pickUniform(pool, random), candidates: pool, headers: REROUTE_HEADERS };
  }
  if (unreachable.length === 0) return { outcome: 'unavailable', reason: 'no-address', message: NO_ADDRESS_MESSAGE, candidates };
  // R10 (P5 form): the pick Kubernetes would make cannot be connected to.
  const target = pickUniform(unreachable, random);
  const cause = peers.lastError?.(target) ?? 'the server is unreachable';
  return {
    outcome: 'unavailable',
    reason: 'unreachable',
    message: `${PROXY_ERROR_PREFIX}apiserver ${peers.label?.(target) ?? serverLabel(target)}: ${cause}`,
    candidates: unreachable,
  };
}

/** One of `pool`, uniformly at random (R8). */
export function pickUniform(pool: readonly string[], random: () => number): string {
  const i = Math.floor(random() * pool.length);
  return pool[i < 0 ? 0 : i >= pool.length ? pool.length - 1 : i] as string;
}
