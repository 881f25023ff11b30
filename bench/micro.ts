// Micro-figures of the routing core, measured in-process after warm-up rounds (JIT), median of the rest: the decision per request, the merge of
// peer-aggregated discovery, and a route-table rebuild after one server's discovery changed.
import type { APIGroupDiscoveryList, GVR } from '../proxy-core/engine/discovery/types.js';
import { mergeDiscovery } from '../proxy-core/engine/discovery/merge.js';
import { decide } from '../proxy-core/engine/routing/decide.js';
import { requestInfo } from '../proxy-core/engine/routing/request-info.js';
import { buildRouteTable } from '../proxy-core/engine/routing/route-table.js';
import { aggregatedDiscovery, loadRelease } from '../proxy-core/engine/releases/index.js';
import { gvrsOf } from '../proxy-core/engine/discovery/fetch.js';
import { usageFigures } from './micro-usage.js';

import type { Figure } from './figure.js';

export type { Figure };

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** `servers` documents, each the release's /apis plus `crdGroups` CRD group-versions (half shared). */
export function syntheticDocs(servers: number, crdGroups: number): { server: string; doc: APIGroupDiscoveryList }[] {
  const base = aggregatedDiscovery(loadRelease('v1.37-dev'), 'apis');
  return Array.from({ length: servers }, (_, s) => {
    const crds = Array.from({ length: crdGroups }, (_, i) => {
      const shared = i < crdGroups / 2;
      const group = shared ? `crd-${i}.example.com` : `crd-${i}-s${s}.example.com`;
      return {
        metadata: { name: group },
        versions: [
          {
            version: 'v1',
            freshness: 'Current',
            resources: [
              {
                resource: 'widgets',
                responseKind: { group: '', version: '', kind: 'Widget' },
                scope: 'Namespaced' as const,
                singularResource: 'widget',
                verbs: s % 2 ? ['get', 'list'] : ['get', 'list', 'watch'],
              },
            ],
          },
        ],
      };
    });
    return { server: `apiserver-${s}`, doc: { ...base, items: [...base.items, ...crds] } };
  });
}

export function microFigures(): Figure[] {
  const docs = syntheticDocs(5, 1000);
  const servers = docs.map((d) => ({ name: d.server, gvrs: gvrsOf(d.doc) as GVR[] }));
  const table = buildRouteTable(servers);
  const peers = { health: () => 'ready' as const };
  const infos = [
    requestInfo('GET', '/apis/apps/v1/namespaces/default/deployments/web', ''),
    requestInfo('GET', '/apis/crd-700-s3.example.com/v1/namespaces/d/widgets', ''),
    requestInfo('GET', '/api/v1/pods', 'watch=true'),
  ];
  // Decision: warm up, then time batches.
  const N = 200_000;
  let sink = 0;
  const decisionNs: number[] = [];
  for (let round = 0; round < 7; round++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) {
      const d = decide({
        info: infos[i % 3]!,
        handling: 'apiserver-0',
        table,
        peers,
        peerProxiedHeader: undefined,
        accept: undefined,
        discoveryMode: 'peer-aggregated',
      });
      sink += d.outcome.length;
    }
    decisionNs.push(Number(process.hrtime.bigint() - t0) / N);
  }
  const requestInfoNs: number[] = [];
  for (let round = 0; round < 9; round++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) sink += requestInfo('GET', '/apis/apps/v1/namespaces/default/deployments/web', '').resource.length;
    requestInfoNs.push(Number(process.hrtime.bigint() - t0) / N);
  }
  const mergeMs: number[] = [];
  for (let warm = 0; warm < 5; warm++) sink += mergeDiscovery(docs).items.length;
  for (let round = 0; round < 9; round++) {
    const t0 = performance.now();
    sink += mergeDiscovery(docs).items.length;
    mergeMs.push(performance.now() - t0);
  }
  const rebuildMs: number[] = [];
  for (let warm = 0; warm < 3; warm++) sink += table.withServer('apiserver-1', servers[1]!.gvrs).serversForKey('x').length;
  const changed = gvrsOf(syntheticDocs(5, 1001)[2]!.doc);
  for (let round = 0; round < 7; round++) {
    const t0 = performance.now();
    sink += table.withServer('apiserver-2', changed).serversForKey('apps/v1/deployments').length;
    rebuildMs.push(performance.now() - t0);
  }
  if (sink === 42) console.log('');
  return [
    { name: 'decision per request (local / rerouted / watch mix)', value: median(decisionNs) / 1000, unit: 'µs', target: 1 },
    { name: 'request classification (requestInfo), for information', value: median(requestInfoNs) / 1000, unit: 'µs' },
    { name: 'merge of 5 servers × 1,000 CRD group-versions', value: median(mergeMs), unit: 'ms', target: 20 },
    { name: 'route-table rebuild after one server changed', value: median(rebuildMs), unit: 'ms', target: 5 },
    ...usageFigures(),
  ];
}
