// Conformance cases C25–C46 (docs/mixed-version-proxy-rules.md §7) for discovery: negotiation, the merged
// /apis document built from the §7 servers' own documents, and its ETag.
import { describe, expect, it } from 'vitest';
import { discoveryETag, ifNoneMatchHits } from '../discovery/etag.js';
import { mergeDiscovery } from '../discovery/merge.js';
import { negotiateDiscovery } from '../discovery/negotiate.js';
import { MEDIA, type APIGroupDiscoveryList } from '../discovery/types.js';
import { SPECS, apisDocument, type ServerSpec } from '../../test/routing-conformance-fixtures.js';

describe('§7 conformance: discovery', () => {
  const own = (name: string, verbs: Record<string, readonly string[]> = {}) => ({
    server: name,
    doc: apisDocument(SPECS[name] as ServerSpec, verbs),
  });
  const groupNames = (d: APIGroupDiscoveryList) => d.items.map((g) => g.metadata?.name);
  const group = (d: APIGroupDiscoveryList, name: string) => d.items.find((g) => g.metadata?.name === name);

  it("C25: merged = A's groups ∪ resource.k8s.io {v1 deviceclasses, v1beta1 resourceclaims}; its own ETag", () => {
    const merged = mergeDiscovery([own('A'), own('B')]);
    expect(groupNames(merged)).toEqual(['apps', 'rbac.authorization.k8s.io', 'batch', 'example.com', 'resource.k8s.io']);
    expect(group(merged, 'resource.k8s.io')!.versions.map((v) => [v.version, (v.resources ?? []).map((r) => r.resource)])).toEqual([
      ['v1', ['deviceclasses']],
      ['v1beta1', ['resourceclaims']],
    ]);
    for (const name of ['apps', 'rbac.authorization.k8s.io', 'batch', 'example.com'])
      expect(group(merged, name)).toEqual(group(own('A').doc, name));
    expect(discoveryETag(JSON.stringify(merged))).not.toBe(discoveryETag(JSON.stringify(own('A').doc)));
  });

  it("C26: profile=nopeer negotiates H's own document (no resource.k8s.io in A's)", () => {
    expect(negotiateDiscovery(MEDIA.v2JsonNoPeer)).toMatchObject({ kind: 'aggregated', version: 'v2', profile: 'nopeer' });
    expect(groupNames(own('A').doc)).not.toContain('resource.k8s.io');
  });

  it('C27, C28, C29, C30: negotiation', () => {
    expect(negotiateDiscovery(MEDIA.v2Protobuf)).toEqual({ kind: 'aggregated', version: 'v2', encoding: 'protobuf', profile: undefined });
    expect(negotiateDiscovery(`${MEDIA.v2Json};profile=foo`)).toEqual({
      kind: 'aggregated',
      version: 'v2',
      encoding: 'json',
      profile: 'foo',
    });
    expect(negotiateDiscovery(MEDIA.v2beta1Json)).toMatchObject({ kind: 'aggregated', version: 'v2beta1' });
    expect(negotiateDiscovery('application/json')).toEqual({ kind: 'legacy' });
  });

  it('C35: resource.k8s.io versions v1, v1beta1 (from B), v1beta2 (from C), visiting A, B, C', () => {
    const merged = mergeDiscovery([own('C'), own('A'), own('B')]);
    expect(group(merged, 'resource.k8s.io')!.versions.map((v) => v.version)).toEqual(['v1', 'v1beta1', 'v1beta2']);
  });

  it('C37: one deviceclasses entry, verbs [get, list, watch], other fields from B', () => {
    const b = own('B', { 'resource.k8s.io/v1/deviceclasses': ['get', 'list'] });
    const d = own('D', { 'resource.k8s.io/v1/deviceclasses': ['get', 'list', 'watch'] });
    const deviceclassesOf = (x: { doc: APIGroupDiscoveryList }) =>
      x.doc.items.find((g) => g.metadata?.name === 'resource.k8s.io')!.versions[0]!.resources![0]!;
    deviceclassesOf(b).singularResource = 'from-b';
    deviceclassesOf(d).singularResource = 'from-d';
    const merged = mergeDiscovery([d, own('A'), b]);
    const entries = merged.items.flatMap((g) =>
      g.versions.flatMap((v) => (v.resources ?? []).filter((r) => r.resource === 'deviceclasses')),
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ verbs: ['get', 'list', 'watch'], singularResource: 'from-b' });
  });

  it('C39: example.com (CRD W on both) appears once', () => {
    const merged = mergeDiscovery([own('A'), own('B')]);
    expect(groupNames(merged).filter((n) => n === 'example.com')).toHaveLength(1);
    expect(group(merged, 'example.com')!.versions).toHaveLength(1);
  });

  it('C40: the merged document still lists the groups of B, whose process is gone', () => {
    expect(groupNames(mergeDiscovery([own('A'), own('B')]))).toContain('resource.k8s.io');
  });

  it("C45: If-None-Match equal to C25's ETag hits (304)", () => {
    const etag = discoveryETag(JSON.stringify(mergeDiscovery([own('A'), own('B')])));
    expect(ifNoneMatchHits(etag, etag)).toBe(true);
    expect(ifNoneMatchHits(discoveryETag(JSON.stringify(own('A').doc)), etag)).toBe(false);
  });

  it("C46: A alone: A's list unchanged", () => {
    const a = own('A');
    expect(mergeDiscovery([a])).toBe(a.doc);
  });
});
