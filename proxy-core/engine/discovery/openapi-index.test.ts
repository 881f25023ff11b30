import { describe, expect, it } from 'vitest';
import { mergeOpenApiV3Index, parseOpenApiV3Index, type GroupVersionRoutes, type OpenApiV3Index } from './openapi-index.js';

const index = (keys: Record<string, string>): OpenApiV3Index => ({
  paths: Object.fromEntries(Object.entries(keys).map(([k, hash]) => [k, { serverRelativeURL: `/openapi/v3/${k}?hash=${hash}` }])),
});

// B and C serve resource.k8s.io/v1; only C serves v1beta2; A (H) serves apps/v1 like everyone.
const serversByGroupVersion = new Map([
  ['resource.k8s.io/v1', ['B', 'C']],
  ['resource.k8s.io/v1beta2', ['C']],
]);
const routes: GroupVersionRoutes = { serversServing: (group, version) => serversByGroupVersion.get(`${group}/${version}`) ?? [] };
const A = index({ 'api/v1': 'a1', 'apis/apps/v1': 'a2', version: 'a3' });
const B = index({ 'api/v1': 'b1', 'apis/apps/v1': 'b2', 'apis/resource.k8s.io/v1': 'b3', 'apis/example.com/v1': 'b4' });
const C = index({ 'api/v1': 'c1', 'apis/resource.k8s.io/v1': 'c3', 'apis/resource.k8s.io/v1beta2': 'c4' });

describe('mergeOpenApiV3Index (P8)', () => {
  it("keeps H's entries and adds each group-version only peers serve from the first peer that lists it", () => {
    const merged = mergeOpenApiV3Index(
      'A',
      [
        { server: 'A', index: A },
        { server: 'B', index: B },
        { server: 'C', index: C },
      ],
      routes,
    );
    expect(merged.paths).toEqual({
      'api/v1': { serverRelativeURL: '/openapi/v3/api/v1?hash=a1' },
      'apis/apps/v1': { serverRelativeURL: '/openapi/v3/apis/apps/v1?hash=a2' },
      'apis/resource.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/resource.k8s.io/v1?hash=b3' },
      'apis/resource.k8s.io/v1beta2': { serverRelativeURL: '/openapi/v3/apis/resource.k8s.io/v1beta2?hash=c4' },
      version: { serverRelativeURL: '/openapi/v3/version?hash=a3' },
    });
    // example.com/v1 is in B's index but not routed to a peer (a CRD, R6): left out.
    expect(Object.keys(merged.paths)).toEqual([...Object.keys(merged.paths)].sort());
  });

  it('skips a peer whose index could not be read, and one the routes do not send the group-version to', () => {
    const merged = mergeOpenApiV3Index(
      'A',
      [
        { server: 'A', index: A },
        { server: 'B', index: undefined },
        { server: 'C', index: C },
      ],
      { serversServing: (g, v) => (`${g}/${v}` === 'resource.k8s.io/v1' ? ['B'] : []) },
    );
    expect(Object.keys(merged.paths)).toEqual(['api/v1', 'apis/apps/v1', 'version']);
  });
});

describe('parseOpenApiV3Index', () => {
  it('reads the paths with a serverRelativeURL; anything else is no index', () => {
    expect(parseOpenApiV3Index('{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=X"},"odd":{}}}')).toEqual({
      paths: { 'api/v1': { serverRelativeURL: '/openapi/v3/api/v1?hash=X' } },
    });
    expect(parseOpenApiV3Index('not json')).toBeUndefined();
    expect(parseOpenApiV3Index('{"kind":"Status"}')).toBeUndefined();
  });
});
