import { describe, expect, it } from 'vitest';
import { groupPathOf } from './discovery-path.js';

describe('groupPathOf (P8)', () => {
  it.each([
    ['/apis/apps', { kind: 'legacy-group', group: 'apps' }],
    ['/apis/resource.k8s.io/v1', { kind: 'legacy-group-version', group: 'resource.k8s.io', version: 'v1' }],
    ['/openapi/v3/apis/resource.k8s.io/v1', { kind: 'openapi-v3-group-version', group: 'resource.k8s.io', version: 'v1' }],
    ['/openapi/v3/api/v1', { kind: 'openapi-v3-group-version', group: '', version: 'v1' }],
  ])('%s names %o', (path, expected) => {
    expect(groupPathOf(path)).toEqual(expected);
  });

  it.each([
    '/apis',
    '/apis/',
    '/apis/apps/',
    '/apis//v1',
    '/apis/apps/v1/deployments',
    '/api/v1',
    '/openapi/v3',
    '/openapi/v2',
    '/openapi/v3/apis/apps',
    '/openapi/v3/apis/apps/v1/x',
    'apis/apps',
  ])('%s names no group', (path) => {
    expect(groupPathOf(path)).toBeUndefined();
  });
});
