import { describe, expect, it } from 'vitest';
import { mergeLegacyGroupList, type ServerGroups } from './legacy-merge.js';
import type { APIGroupDiscoveryList } from './types.js';

/** An aggregated /apis with groups given as name → versions in preference order. */
function apis(groups: Record<string, string[]>): APIGroupDiscoveryList {
  return {
    apiVersion: 'apidiscovery.k8s.io/v2',
    kind: 'APIGroupDiscoveryList',
    metadata: {},
    items: Object.entries(groups).map(([name, versions]) => ({
      metadata: { name },
      versions: versions.map((version) => ({ version, resources: [] })),
    })),
  };
}

const older: ServerGroups = {
  server: 'a',
  release: 'v1.36.0-alpha.1',
  doc: apis({ apps: ['v1'], 'resource.k8s.io': ['v1beta1'], 'storage.k8s.io': ['v1'] }),
};
const newer: ServerGroups = { server: 'b', release: 'v1.37.0-alpha.0', doc: apis({ apps: ['v1'], 'resource.k8s.io': ['v1', 'v1beta2'] }) };

describe('mergeLegacyGroupList (P8)', () => {
  it('lists every group-version any server serves in version priority (P9), the first preferred, whatever the server order', () => {
    for (const servers of [
      [older, newer],
      [newer, older],
    ]) {
      const list = mergeLegacyGroupList(servers);
      expect(list).toMatchObject({ kind: 'APIGroupList', apiVersion: 'v1' });
      expect(list.groups.map((g) => g.name)).toEqual(['apps', 'resource.k8s.io', 'storage.k8s.io']);
      const resource = list.groups.find((g) => g.name === 'resource.k8s.io');
      expect(resource?.versions).toEqual([
        { groupVersion: 'resource.k8s.io/v1', version: 'v1' },
        { groupVersion: 'resource.k8s.io/v1beta2', version: 'v1beta2' },
        { groupVersion: 'resource.k8s.io/v1beta1', version: 'v1beta1' },
      ]);
      expect(resource?.preferredVersion).toEqual({ groupVersion: 'resource.k8s.io/v1', version: 'v1' });
      // A group only the older server serves keeps that server's preferred version.
      expect(list.groups.find((g) => g.name === 'storage.k8s.io')?.preferredVersion.version).toBe('v1');
    }
  });

  it('a server whose release is unknown counts as the oldest', () => {
    const unknown: ServerGroups = { server: 'a', release: undefined, doc: apis({ 'resource.k8s.io': ['v1beta1', 'v1'] }) };
    const known: ServerGroups = { server: 'z', release: 'v1.30.0', doc: apis({ 'resource.k8s.io': ['v1'] }) };
    expect(mergeLegacyGroupList([unknown, known]).groups[0]?.preferredVersion.version).toBe('v1');
  });

  it('leaves out the core group and groups without versions; no server gives an empty list', () => {
    const odd: ServerGroups = {
      server: 'a',
      release: 'v1.36.0',
      doc: { ...apis({ empty: [] }), items: [...apis({ empty: [] }).items, { versions: [{ version: 'v1' }] }] },
    };
    expect(mergeLegacyGroupList([odd]).groups).toEqual([]);
    expect(mergeLegacyGroupList([])).toEqual({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] });
  });
});
