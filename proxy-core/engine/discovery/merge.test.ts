import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeDiscovery, mergePreservingRelativeOrder } from './merge.js';
import type { APIGroupDiscoveryList, APIResourceDiscovery } from './types.js';

type Spec = Record<string, Record<string, (Partial<APIResourceDiscovery> & { resource: string })[]>>;

function doc(groups: Spec, freshness = 'Current'): APIGroupDiscoveryList {
  return {
    apiVersion: 'apidiscovery.k8s.io/v2',
    kind: 'APIGroupDiscoveryList',
    metadata: {},
    items: Object.entries(groups).map(([name, versions]) => ({
      metadata: { name },
      versions: Object.entries(versions).map(([version, resources]) => ({
        version,
        freshness,
        resources: resources.map((r) => ({
          scope: 'Cluster' as const,
          verbs: ['get', 'list'],
          responseKind: { group: name, version, kind: 'K' },
          ...r,
        })),
      })),
    })),
  };
}

const names = (d: APIGroupDiscoveryList) =>
  d.items.map(
    (g) =>
      `${g.metadata?.name}:${g.versions.map((v) => `${v.version}[${(v.resources ?? []).map((r) => r.resource).join(',')}]`).join(' ')}`,
  );

describe('mergeDiscovery (spec D2)', () => {
  it('returns a single list unchanged (the same object)', () => {
    const only = doc({ apps: { v1: [{ resource: 'deployments' }] } });
    expect(mergeDiscovery([{ server: 'A', doc: only }])).toBe(only);
  });

  it('returns an empty list for no servers', () => {
    expect(mergeDiscovery([]).items).toEqual([]);
  });

  it('unions groups, versions and resources by name, each once', () => {
    const merged = mergeDiscovery([
      { server: 'A', doc: doc({ apps: { v1: [{ resource: 'deployments' }] }, batch: { v1: [{ resource: 'jobs' }] } }) },
      {
        server: 'B',
        doc: doc({
          apps: { v1: [{ resource: 'deployments' }, { resource: 'statefulsets' }] },
          'resource.k8s.io': { v1: [{ resource: 'deviceclasses' }], v1beta1: [{ resource: 'resourceclaims' }] },
        }),
      },
    ]);
    expect(names(merged)).toEqual([
      'apps:v1[deployments,statefulsets]',
      'batch:v1[jobs]',
      'resource.k8s.io:v1[deviceclasses] v1beta1[resourceclaims]',
    ]);
  });

  it('visits servers in ascending name order whatever the input order', () => {
    const a = doc({ g: { v1: [{ resource: 'r', singularResource: 'from-a' }] } });
    const b = doc({ g: { v1: [{ resource: 'r', singularResource: 'from-b', verbs: ['watch'] }] } });
    const m1 = mergeDiscovery([
      { server: 'B', doc: b },
      { server: 'A', doc: a },
    ]);
    const m2 = mergeDiscovery([
      { server: 'A', doc: a },
      { server: 'B', doc: b },
    ]);
    expect(m1).toEqual(m2);
    expect(m1.items[0]!.versions[0]!.resources![0]).toMatchObject({ singularResource: 'from-a', verbs: ['get', 'list', 'watch'] });
  });

  it('a conflicting resource keeps the first-visited fields, verbs sorted union, subresources unioned by name and sorted (later wins)', () => {
    const merged = mergeDiscovery([
      {
        server: 'B',
        doc: doc({
          g: {
            v1: [
              {
                resource: 'r',
                scope: 'Namespaced',
                verbs: ['watch', 'get'],
                shortNames: ['b'],
                subresources: [
                  { subresource: 'status', verbs: ['get'] },
                  { subresource: 'scale', verbs: ['get'] },
                ],
              },
            ],
          },
        }),
      },
      {
        server: 'D',
        doc: doc({
          g: {
            v1: [
              {
                resource: 'r',
                scope: 'Cluster',
                verbs: ['list', 'create'],
                shortNames: ['d'],
                subresources: [
                  { subresource: 'status', verbs: ['get', 'patch'] },
                  { subresource: 'eviction', verbs: ['create'] },
                ],
              },
            ],
          },
        }),
      },
    ]);
    const r = merged.items[0]!.versions[0]!.resources![0]!;
    expect(r.scope).toBe('Namespaced');
    expect(r.shortNames).toEqual(['b']);
    expect(r.verbs).toEqual(['create', 'get', 'list', 'watch']);
    expect(r.subresources).toEqual([
      { subresource: 'eviction', verbs: ['create'] },
      { subresource: 'scale', verbs: ['get'] },
      { subresource: 'status', verbs: ['get', 'patch'] },
    ]);
  });

  it('identical resources are kept as listed (verbs not re-sorted)', () => {
    const same = doc({ g: { v1: [{ resource: 'r', verbs: ['watch', 'get'] }] } });
    const merged = mergeDiscovery([
      { server: 'A', doc: same },
      { server: 'B', doc: doc({ g: { v1: [{ resource: 'r', verbs: ['watch', 'get'] }] } }) },
      { server: 'C', doc: doc({ h: { v1: [{ resource: 's' }] } }) },
    ]);
    expect(merged.items[0]!.versions[0]!.resources![0]!.verbs).toEqual(['watch', 'get']);
  });

  it('version freshness and group metadata come from the first-visited list', () => {
    const a = doc({ g: { v1: [{ resource: 'r' }] } }, 'Stale');
    a.items[0]!.metadata = { name: 'g', creationTimestamp: null } as never;
    const merged = mergeDiscovery([
      { server: 'B', doc: doc({ g: { v1: [{ resource: 'r' }] } }, 'Current') },
      { server: 'A', doc: a },
    ]);
    expect(merged.items[0]!.versions[0]!.freshness).toBe('Stale');
    expect(merged.items[0]!.metadata).toEqual({ name: 'g', creationTimestamp: null });
  });

  it('keeps the order when every list agrees, and does not re-sort versions by priority', () => {
    const order = { g: { v1beta1: [{ resource: 'z' }, { resource: 'a' }], v1: [{ resource: 'r' }] }, apps: { v1: [{ resource: 'd' }] } };
    const merged = mergeDiscovery([
      { server: 'A', doc: doc(order) },
      { server: 'B', doc: doc(order) },
    ]);
    expect(names(merged)).toEqual(['g:v1beta1[z,a] v1[r]', 'apps:v1[d]']);
  });

  it('merges disagreeing orders topologically (C35 shape)', () => {
    const merged = mergeDiscovery([
      { server: 'A', doc: doc({ apps: { v1: [{ resource: 'd' }] }, batch: { v1: [{ resource: 'j' }] } }) },
      {
        server: 'B',
        doc: doc({
          apps: { v1: [{ resource: 'd' }] },
          'resource.k8s.io': { v1: [{ resource: 'dc' }], v1beta1: [{ resource: 'rc' }] },
          batch: { v1: [{ resource: 'j' }] },
        }),
      },
      {
        server: 'C',
        doc: doc({
          apps: { v1: [{ resource: 'd' }] },
          'resource.k8s.io': { v1beta2: [{ resource: 'rc' }] },
          batch: { v1: [{ resource: 'j' }] },
        }),
      },
    ]);
    expect(merged.items.map((g) => g.metadata?.name)).toEqual(['apps', 'resource.k8s.io', 'batch']);
    expect(merged.items[1]!.versions.map((v) => v.version)).toEqual(['v1', 'v1beta1', 'v1beta2']);
  });
});

describe('mergePreservingRelativeOrder', () => {
  it.each<[string[][], string[]]>([
    [[['a', 'b', 'c']], ['a', 'b', 'c']],
    [
      [
        ['a', 'c'],
        ['a', 'b', 'c'],
      ],
      ['a', 'b', 'c'],
    ],
    [
      [
        ['b', 'c'],
        ['a', 'b'],
      ],
      ['a', 'b', 'c'],
    ],
    [
      [['x'], ['y']],
      ['x', 'y'],
    ],
    [
      [
        ['a', 'b'],
        ['b', 'a'],
      ],
      ['a', 'b'],
    ], // a cycle: first seen goes first
    [[], []],
  ])('%j → %j', (orders, expected) => {
    expect(mergePreservingRelativeOrder(orders)).toEqual(expected);
  });

  it('lists that are sub-sequences of one order merge into an order consistent with it, each name once', () => {
    const master = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    fc.assert(
      fc.property(fc.array(fc.subarray(master), { minLength: 1, maxLength: 5 }), (orders) => {
        const out = mergePreservingRelativeOrder(orders);
        const expected = master.filter((n) => orders.some((o) => o.includes(n)));
        expect(new Set(out).size).toBe(out.length);
        expect([...out].sort()).toEqual([...expected].sort());
        for (const o of orders) expect(out.filter((n) => o.includes(n))).toEqual(o);
      }),
    );
  });

  it('any lists: every name exactly once', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 5 }).map((xs) => [...new Set(xs)]),
          { maxLength: 5 },
        ),
        (orders) => {
          const out = mergePreservingRelativeOrder(orders);
          expect([...out].sort()).toEqual([...new Set(orders.flat())].sort());
        },
      ),
    );
  });
});
