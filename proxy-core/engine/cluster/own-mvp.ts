// Is an apiserver's own Mixed Version Proxy on? Told from outside, from what the server shows anyway:
// - its readiness checks (/readyz?verbose, which the server set probes): the feature gate
//   UnknownVersionInteroperabilityProxy adds the post-start hook `peer-endpoint-reconciler-controller`;
//   the proxy itself exists only with --peer-ca-file too, and adds `mixed-version-proxy-handler`,
//   `local-discovery-cache-sync` and `peer-discovery-workers`. With the proxy, /apis answers the
//   peer-aggregated discovery document unless the client asks profile=nopeer.
// - its identity lease: with the gate on, the annotation kubernetes.io/peer-advertise-address.
// (Facts from k8s.io/kubernetes pkg/controlplane/apiserver, v1.36 and v1.37.)
import type { OwnMvp, OwnProxyMetrics } from '../../contract/own-mvp.js';
import { NO_COUNTS } from './own-proxy-metrics.js';

const GATE_HOOK = 'poststarthook/peer-endpoint-reconciler-controller';
const PROXY_HOOKS = [
  'poststarthook/mixed-version-proxy-handler',
  'poststarthook/local-discovery-cache-sync',
  'poststarthook/peer-discovery-workers',
];
/** A check every kube-apiserver lists: without it, the body was not a kube-apiserver's verbose readyz. */
const ANY_KUBE_HOOK = 'poststarthook/start-apiserver-admission-initializer';

/** The checks of a real kube-apiserver's /readyz?verbose (not a simulated or stand-in server's). */
export function looksLikeKubeApiserver(checks: readonly string[] | undefined): boolean {
  return checks?.includes(ANY_KUBE_HOOK) ?? false;
}

export interface OwnMvpInput {
  /** The server as its summary names it (its display name). */
  readonly name: string;
  /** Every check /readyz?verbose listed (passing or not); undefined before the first readable probe. */
  readonly readyChecks?: readonly string[];
  readonly gitVersion?: string;
  /** The address the identity lease advertises, when the server was found from it. */
  readonly advertisedAddress?: string;
  readonly metrics: OwnProxyMetrics;
}

export const NOT_READ: OwnProxyMetrics = { state: 'not-read', ...NO_COUNTS };

export function ownMvpOf(input: OwnMvpInput): OwnMvp {
  const checks = input.readyChecks;
  const evidence: string[] = [];
  const known = checks !== undefined && looksLikeKubeApiserver(checks);
  const gate = !known ? 'unknown' : checks.includes(GATE_HOOK) ? 'yes' : 'no';
  const proxy = !known ? 'unknown' : PROXY_HOOKS.some((h) => checks.includes(h)) ? 'yes' : 'no';
  if (known) {
    evidence.push(
      gate === 'yes'
        ? `/readyz lists ${GATE_HOOK} (the UnknownVersionInteroperabilityProxy gate is on)`
        : `/readyz lists no ${GATE_HOOK} (the UnknownVersionInteroperabilityProxy gate is off)`,
    );
    if (gate === 'yes')
      evidence.push(
        proxy === 'yes'
          ? `/readyz lists ${PROXY_HOOKS[0]} (the peer proxy runs)`
          : `/readyz lists no ${PROXY_HOOKS[0]} (no peer proxy: --peer-ca-file is not set)`,
      );
  } else if (checks !== undefined) {
    evidence.push(
      "/readyz?verbose lists none of kube-apiserver's post-start hooks: not a kube-apiserver, or one whose checks cannot be read",
    );
  }
  if (input.advertisedAddress)
    evidence.push(`its identity lease advertises ${input.advertisedAddress} to peers (kubernetes.io/peer-advertise-address)`);
  const peerCaFile = gate === 'no' ? 'unknown' : proxy;
  const who = input.name;
  let verdict: OwnMvp['verdict'];
  let summary: string;
  if (gate === 'unknown') {
    verdict = 'unknown';
    summary =
      checks === undefined
        ? `${who}'s own Mixed Version Proxy: not known yet (no readable /readyz?verbose)`
        : `${who}'s own Mixed Version Proxy: cannot tell (its /readyz?verbose names no kube-apiserver checks)`;
  } else if (gate === 'no') {
    verdict = 'off';
    summary = `${who}'s own Mixed Version Proxy is off: the UnknownVersionInteroperabilityProxy feature gate is off${gateDefaultNote(input.gitVersion)}`;
  } else if (proxy === 'no') {
    verdict = 'off';
    summary = `${who}'s own Mixed Version Proxy is off: no --peer-ca-file (the feature gate is on, but without a peer CA the server proxies nothing; kubeadm does not set it)`;
  } else {
    verdict = 'on';
    summary = `${who}'s own Mixed Version Proxy is on: it reroutes what it cannot serve to a peer${input.advertisedAddress ? ` and is reached at ${input.advertisedAddress}` : ''}`;
  }
  // The counters exist only where a peer proxy counts: elsewhere they are "not exposed", never zero.
  const metrics =
    verdict === 'on' || input.metrics.state !== 'exposed'
      ? input.metrics
      : { ...input.metrics, ...NO_COUNTS, state: 'not-exposed' as const };
  return {
    verdict,
    summary,
    featureGate: gate,
    peerCaFile,
    ...(input.advertisedAddress ? { advertisedAddress: input.advertisedAddress } : {}),
    peerAggregatedDiscovery: proxy,
    evidence,
    metrics,
  };
}

function gateDefaultNote(gitVersion: string | undefined): string {
  const m = /^v?1\.(\d+)\./.exec(gitVersion ?? '');
  if (!m) return '';
  const minor = Number(m[1]);
  if (minor < 28) return ` (${gitVersion} has no such gate)`;
  if (minor < 36) return ` (off by default in ${gitVersion}: alpha until v1.36)`;
  return ' (it is on by default since v1.36: set off with --feature-gates)';
}
