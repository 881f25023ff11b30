// Words for a snapshot: where it came from, its releases, its file name.
import { shownName, type RoutingSnapshot } from '../../../proxy-core/contract/index.js';
import { shortRelease } from '../../shared/ui/format.js';

/** "the simulated cluster", "context prod-eu", "3 apiservers (a, b, c)". */
export function describeSource(s: RoutingSnapshot): string {
  switch (s.source.kind) {
    case 'sim':
      return 'the simulated cluster';
    case 'kubeconfig':
      return s.source.context ? `context ${s.source.context}` : s.source.cluster ? `cluster ${s.source.cluster}` : 'a kubeconfig';
    case 'servers':
      return `${s.servers.length} apiserver${s.servers.length === 1 ? '' : 's'} (${s.servers.map(shownName).join(', ')})`;
  }
}

/** "v1.36 ×2, v1.37 ×1": the releases of the snapshot's servers, oldest first. */
export function releasesSummary(s: RoutingSnapshot): string {
  const counts = new Map<string, number>();
  for (const server of s.servers) {
    const r = shortRelease(server.gitVersion);
    counts.set(r, (counts.get(r) ?? 0) + 1);
  }
  return [...counts]
    .sort(([a], [b]) => a.localeCompare(b, undefined, { numeric: true }))
    .map(([r, n]) => `${r} ×${n}`)
    .join(', ');
}

/** peerscope-snapshot-2026-11-23T08-00-00-000Z.json */
export function snapshotFileName(s: RoutingSnapshot): string {
  return `peerscope-snapshot-${s.takenAt.replace(/[:.]/g, '-')}.json`;
}

/** Saves the snapshot as a JSON file through the browser's download. */
export function downloadSnapshot(s: RoutingSnapshot): void {
  const url = URL.createObjectURL(new Blob([JSON.stringify(s, null, 2)], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = snapshotFileName(s);
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
