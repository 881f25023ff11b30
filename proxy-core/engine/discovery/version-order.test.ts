// Rule P9: the merged discovery documents list each group's versions in Kubernetes' version priority
// (the port's default), or in D2's order (`--faithful`). The property: over random sets of servers'
// group lists, every version any server serves is listed once, in priority order, with the union of
// the resources every server lists for it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byVersionPriority, compareVersionPriority } from '../../contract/version-priority.js';
import { mergeLegacyGroupList } from './legacy-merge.js';
import { mergeDiscovery } from './merge.js';
import type { APIGroupDiscoveryList } from './types.js';

/** group → version → resources, in the order given (a server's own list). */
type Groups = [string, [string, string[]][]][];

function doc(groups: Groups): APIGroupDiscoveryList {
  return {
    apiVersion: 'apidiscovery.k8s.io/v2',
    kind: 'APIGroupDiscoveryList',
    metadata: {},
    items: groups.map(([name, versions]) => ({
      metadata: { name },
      versions: versions.map(([version, resources]) => ({
        version,
        freshness: 'Current',
        resources: resources.map((resource) => ({ resource, scope: 'Namespaced' as const, verbs: ['get', 'list'] })),
      })),
    })),
  };
}

const versionsOf = (d: APIGroupDiscoveryList, group: string) =>
  d.items.find((g) => g.metadata?.name === group)?.versions.map((v) => v.version);

// What `serve` in front of the simulated v1.36-dev and v1.37-dev serves for scheduling.k8s.io.
const older = doc([
  [
    'scheduling.k8s.io',
    [
      ['v1', ['priorityclasses']],
      ['v1alpha1', ['workloads']],
    ],
  ],
]);
const newer = doc([
  [
    'scheduling.k8s.io',
    [
      ['v1', ['priorityclasses']],
      ['v1beta1', ['workloads']],
      ['v1alpha3', ['podgroups']],
    ],
  ],
]);

describe('version priority (kube-aware)', () => {
  it('GA before beta before alpha, higher numbers first, other strings last in code-unit order', () => {
    const shuffled = [
      'foo10',
      'v1alpha1',
      'v1beta1',
      'v11alpha2',
      'v1',
      'foo1',
      'v10',
      'v2',
      'v12alpha1',
      'v1beta2',
      'v3beta1',
      'v10beta3',
    ];
    expect(byVersionPriority(shuffled)).toEqual([
      'v10',
      'v2',
      'v1',
      'v10beta3',
      'v3beta1',
      'v1beta2',
      'v1beta1',
      'v12alpha1',
      'v11alpha2',
      'v1alpha1',
      'foo1',
      'foo10',
    ]);
    expect(compareVersionPriority('v1', 'v1')).toBe(0);
  });
});

describe('merged /apis and legacy /apis in version priority (rule P9)', () => {
  it('the simulated v1.36-dev + v1.37-dev: the newer v1beta1 before the older v1alpha1; --faithful keeps D2’s order', () => {
    const lists = [
      { server: 'kube-a', doc: older },
      { server: 'kube-b', doc: newer },
    ];
    expect(versionsOf(mergeDiscovery(lists, { versionOrder: 'priority' }), 'scheduling.k8s.io')).toEqual([
      'v1',
      'v1beta1',
      'v1alpha3',
      'v1alpha1',
    ]);
    expect(versionsOf(mergeDiscovery(lists, { versionOrder: 'as-served' }), 'scheduling.k8s.io')).toEqual([
      'v1',
      'v1alpha1',
      'v1beta1',
      'v1alpha3',
    ]);
    expect(versionsOf(mergeDiscovery(lists), 'scheduling.k8s.io')).toEqual(['v1', 'v1alpha1', 'v1beta1', 'v1alpha3']);
  });

  it('a list already in priority order stays the same object (the same ETag as the server’s own)', () => {
    expect(mergeDiscovery([{ server: 'kube-b', doc: newer }], { versionOrder: 'priority' })).toBe(newer);
  });

  it('legacy /apis: versions in priority order, the first preferred, whichever server is newest', () => {
    const list = mergeLegacyGroupList([
      { server: 'kube-a', release: 'v1.36.3', doc: older },
      // A newest server whose own list prefers a beta (as a CRD may): the GA version an older one serves still comes first.
      { server: 'kube-b', release: 'v1.37.2', doc: doc([['scheduling.k8s.io', [['v1beta1', ['workloads']]]]]) },
    ]);
    expect(list.groups[0]?.versions.map((v) => v.version)).toEqual(['v1', 'v1beta1', 'v1alpha1']);
    expect(list.groups[0]?.preferredVersion).toEqual({ groupVersion: 'scheduling.k8s.io/v1', version: 'v1' });
  });

  const version = fc.oneof(
    fc
      .tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom('', 'alpha', 'beta'), fc.integer({ min: 1, max: 3 }))
      .map(([major, stability, n]) => (stability ? `v${major}${stability}${n}` : `v${major}`)),
    fc.constantFrom('foo', 'v0', 'v1gamma1'),
  );
  const serverGroups = fc.uniqueArray(
    fc.tuple(
      fc.constantFrom('apps', 'batch', 'x.io', 'y.io'),
      fc.uniqueArray(fc.tuple(version, fc.uniqueArray(fc.constantFrom('as', 'bs', 'cs', 'ds'), { maxLength: 3 })), {
        selector: ([v]) => v,
        minLength: 1,
        maxLength: 5,
      }),
    ),
    { selector: ([g]) => g, maxLength: 4 },
  );

  it('property: every version any server serves once, in priority order, with the union of its resources', () => {
    fc.assert(
      fc.property(fc.array(serverGroups, { minLength: 1, maxLength: 4 }), (servers) => {
        const lists = servers.map((groups, i) => ({ server: `s${i}`, doc: doc(groups) }));
        const merged = mergeDiscovery(lists, { versionOrder: 'priority' });
        const legacy = mergeLegacyGroupList(lists.map((l, i) => ({ ...l, release: `v1.3${i}.0` })));
        const union = new Map<string, Map<string, Set<string>>>();
        for (const groups of servers)
          for (const [group, versions] of groups)
            for (const [v, resources] of versions) {
              const byVersion = union.get(group) ?? new Map<string, Set<string>>();
              union.set(group, byVersion);
              const set = byVersion.get(v) ?? new Set<string>();
              byVersion.set(v, set);
              for (const r of resources) set.add(r);
            }
        expect(merged.items.map((g) => g.metadata?.name).sort()).toEqual([...union.keys()].sort());
        for (const [group, byVersion] of union) {
          const listed = versionsOf(merged, group)!;
          expect(listed).toEqual(byVersionPriority([...byVersion.keys()]));
          const item = merged.items.find((g) => g.metadata?.name === group)!;
          for (const v of item.versions)
            expect((v.resources ?? []).map((r) => r.resource).sort()).toEqual([...byVersion.get(v.version)!].sort());
          const legacyGroup = legacy.groups.find((g) => g.name === group)!;
          expect(legacyGroup.versions.map((v) => v.version)).toEqual(listed);
          expect(legacyGroup.preferredVersion.version).toBe(listed[0]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
