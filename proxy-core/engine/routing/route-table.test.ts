import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gvrKey, type GVR } from '../discovery/types.js';
import { buildRouteTable } from './route-table.js';

const gvr = (key: string): GVR => {
  const [group = '', version = '', resource = ''] = key.split('/');
  return { group, version, resource };
};
const A = ['apps/v1/deployments', '/v1/pods', 'batch/v1/jobs'];
const B = [...A, 'resource.k8s.io/v1/deviceclasses', 'resource.k8s.io/v1beta1/resourceclaims'];

describe('RouteTable', () => {
  const table = buildRouteTable([
    { name: 'A', gvrs: A.map(gvr) },
    { name: 'B', gvrs: B.map(gvr), excludedGroupVersions: ['example.com/v1'] },
    { name: 'C', gvrs: undefined },
  ]);

  it('serversFor: the servers that list the exact GVR, in configuration order', () => {
    expect(table.serversFor(gvr('apps/v1/deployments'))).toEqual(['A', 'B']);
    expect(table.serversFor(gvr('resource.k8s.io/v1/deviceclasses'))).toEqual(['B']);
    expect(table.serversFor(gvr('resource.k8s.io/v1alpha3/deviceclasses'))).toEqual([]);
    expect(table.serversForKey('/v1/pods')).toEqual(['A', 'B']);
  });

  it('serves and known: a server whose discovery is unknown serves nothing', () => {
    expect(table.serves('A', gvr('/v1/pods'))).toBe(true);
    expect(table.serves('A', gvr('resource.k8s.io/v1/deviceclasses'))).toBe(false);
    expect(table.serves('C', gvr('/v1/pods'))).toBe(false);
    expect([table.known('A'), table.known('C'), table.known('Z')]).toEqual([true, false, false]);
  });

  it('exclusions: per server, and the union for R6', () => {
    expect(table.isExcluded('B', 'example.com', 'v1')).toBe(true);
    expect(table.isExcluded('A', 'example.com', 'v1')).toBe(false);
    expect(table.excludes('example.com', 'v1')).toBe(true);
    expect(table.excludes('example.com', 'v2')).toBe(false);
  });

  it('rows: every GVR once, sorted by group, version, resource', () => {
    expect(table.rows().map((r) => `${gvrKey(r.gvr)}=${r.servers.join(',')}`)).toEqual([
      '/v1/pods=A,B',
      'apps/v1/deployments=A,B',
      'batch/v1/jobs=A,B',
      'resource.k8s.io/v1/deviceclasses=B',
      'resource.k8s.io/v1beta1/resourceclaims=B',
    ]);
  });

  it('skewed: rows served by some but not all known servers', () => {
    expect(table.skewed().map(gvrKey)).toEqual(['resource.k8s.io/v1/deviceclasses', 'resource.k8s.io/v1beta1/resourceclaims']);
    expect(
      buildRouteTable([
        { name: 'A', gvrs: A.map(gvr) },
        { name: 'B', gvrs: A.map(gvr) },
      ]).skewed(),
    ).toEqual([]);
  });

  it('withServer: a new table; the old one is unchanged', () => {
    const next = table.withServer('A', B.map(gvr));
    expect(next.serversFor(gvr('resource.k8s.io/v1/deviceclasses'))).toEqual(['A', 'B']);
    expect(table.serversFor(gvr('resource.k8s.io/v1/deviceclasses'))).toEqual(['B']);
    const forgotten = next.withServer('B', undefined);
    expect(forgotten.known('B')).toBe(false);
    expect(forgotten.excludes('example.com', 'v1')).toBe(false);
    expect(forgotten.serversFor(gvr('/v1/pods'))).toEqual(['A']);
    const added = table.withServer('Z', [gvr('/v1/pods')]);
    expect(added.serverNames).toEqual(['A', 'B', 'C', 'Z']);
    expect(added.serversFor(gvr('/v1/pods'))).toEqual(['A', 'B', 'Z']);
  });

  it('refuses two servers with one name', () => {
    expect(() =>
      buildRouteTable([
        { name: 'A', gvrs: [] },
        { name: 'A', gvrs: undefined },
      ]),
    ).toThrow(/unique/);
  });

  it('withServer gives the same table as a build from scratch, for any sequence of changes', () => {
    const keys = ['/v1/pods', 'apps/v1/deployments', 'g/v1/r', 'g/v2/r', 'h/v1/s', 'h/v1/t'];
    const names = ['A', 'B', 'C', 'D'];
    const serverKeys = fc.option(fc.subarray(keys), { nil: undefined });
    const change = fc.record({ name: fc.constantFrom(...names), keys: serverKeys });
    fc.assert(
      fc.property(fc.array(serverKeys, { minLength: 4, maxLength: 4 }), fc.array(change, { maxLength: 8 }), (initial, changes) => {
        const state = new Map(names.map((n, i) => [n, initial[i]]));
        let table = buildRouteTable(names.map((n) => ({ name: n, gvrs: state.get(n)?.map(gvr) })));
        for (const c of changes) {
          state.set(c.name, c.keys);
          table = table.withServer(c.name, c.keys?.map(gvr));
        }
        const scratch = buildRouteTable(names.map((n) => ({ name: n, gvrs: state.get(n)?.map(gvr) })));
        expect(table.rows()).toEqual(scratch.rows());
        expect(table.skewed()).toEqual(scratch.skewed());
        for (const n of names) expect(table.known(n)).toBe(scratch.known(n));
      }),
    );
  });
});

describe('RouteTable: servers by group and group-version (P8)', () => {
  const table = buildRouteTable([
    {
      name: 'b',
      gvrs: [
        { group: 'resource.k8s.io', version: 'v1', resource: 'deviceclasses' },
        { group: 'resource.k8s.io', version: 'v1', resource: 'resourceclaims' },
      ],
    },
    {
      name: 'a',
      gvrs: [
        { group: 'resource.k8s.io', version: 'v1beta1', resource: 'resourceclaims' },
        { group: 'apps', version: 'v1', resource: 'deployments' },
      ],
    },
    { name: 'c', gvrs: undefined },
  ]);

  it('lists each server once, in configuration order; an unread server serves nothing', () => {
    expect(table.serversForGroupVersion('resource.k8s.io', 'v1')).toEqual(['b']);
    expect(table.serversForGroupVersion('resource.k8s.io', 'v1beta1')).toEqual(['a']);
    expect(table.serversForGroup('resource.k8s.io')).toEqual(['b', 'a']);
    expect(table.serversForGroup('apps')).toEqual(['a']);
    expect(table.serversForGroup('example.com')).toEqual([]);
    expect(table.serversForGroupVersion('apps', 'v2')).toEqual([]);
  });

  it('a derived table answers from its own servers', () => {
    const next = table.withServer('c', [{ group: 'apps', version: 'v1', resource: 'deployments' }]);
    expect(next.serversForGroup('apps')).toEqual(['a', 'c']);
    expect(table.serversForGroup('apps')).toEqual(['a']);
  });
});
