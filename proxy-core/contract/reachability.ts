// Servers out of reach, told in one line per cause (timeout, refused, certificate…) and which server
// carries the traffic: the same lines in `peerscope servers`, `serve` and the UI's Server health. The
// causes themselves are found in the core (proxy-core/engine/cluster/reachability.ts).
import type { UnreachableCause } from './servers.js';

/** What a reachability summary needs of a server's status. */
export interface ReachabilityFacts {
  readonly name: string;
  readonly displayName?: string;
  readonly url: string;
  readonly health: string;
  readonly unreachable?: { readonly cause: UnreachableCause; readonly words: string };
}

/**
 * One line per cause for the servers out of reach, e.g. "2 apiservers out of reach, connection
 * refused (nothing listens there): 198.18.0.21:6443 (kube-a), …", and, when some server still
 * answers, which one carries the traffic. Empty when every server is reachable.
 */
export function reachabilityLines(servers: readonly ReachabilityFacts[]): string[] {
  const byCause = new Map<string, ReachabilityFacts[]>();
  for (const s of servers) {
    if (s.health !== 'unreachable') continue;
    const words = s.unreachable?.words ?? 'unreachable';
    byCause.set(words, [...(byCause.get(words) ?? []), s]);
  }
  const lines = [...byCause].map(([words, group]) => {
    const named = group.map((s) => {
      const host = hostOf(s.url);
      const shown = s.displayName ?? s.name;
      return shown === host ? host : `${host} (${shown})`;
    });
    return `${group.length} apiserver${group.length === 1 ? '' : 's'} out of reach, ${words}: ${named.join(', ')}`;
  });
  if (lines.length === 0) return lines;
  // The handling-server policy picks among ready servers only (proxy/policy.ts).
  const ready = servers.filter((s) => s.health === 'ready');
  const answering = servers.some((s) => s.health === 'not-ready' || s.health === 'draining');
  lines.push(
    ready.length > 0
      ? `the port routes through ${ready.map((s) => `${s.displayName ?? s.name} (${s.url})`).join(', ')}`
      : answering
        ? 'no apiserver is ready: the port answers 503 until one is'
        : 'no apiserver answers from here: the port answers 503 until one does',
  );
  return lines;
}

/** HOST:PORT of a URL (the contract has no URL class: it runs in every host). */
function hostOf(url: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)/i.exec(url)?.[1] ?? url;
}
