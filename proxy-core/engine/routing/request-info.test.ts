import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactMetadataName, requestInfo, type RequestInfo } from './request-info.js';

type Expected = Partial<Omit<RequestInfo, 'parts'>> & { parts?: string[] };

describe('requestInfo (spec R2)', () => {
  it.each<[string, string, string, Expected]>([
    [
      'GET',
      '/api/v1/pods',
      '',
      {
        isResourceRequest: true,
        apiPrefix: 'api',
        apiGroup: '',
        apiVersion: 'v1',
        resource: 'pods',
        verb: 'list',
        namespace: '',
        name: '',
        parts: ['pods'],
      },
    ],
    [
      'GET',
      '/api/v1/namespaces/d/pods/p',
      '',
      { verb: 'get', namespace: 'd', resource: 'pods', name: 'p', subresource: '', parts: ['pods', 'p'] },
    ],
    ['HEAD', '/api/v1/namespaces/d/pods/p', '', { verb: 'get', name: 'p' }],
    [
      'GET',
      '/api/v1/namespaces/d/pods/p/log',
      'follow=true',
      { verb: 'get', resource: 'pods', name: 'p', subresource: 'log', parts: ['pods', 'p', 'log'] },
    ],
    ['POST', '/api/v1/namespaces/d/pods/p/exec', 'command=sh', { verb: 'create', resource: 'pods', subresource: 'exec' }],
    ['POST', '/api/v1/namespaces/d/pods', '', { verb: 'create', resource: 'pods', name: '' }],
    [
      'PUT',
      '/apis/apps/v1/namespaces/d/deployments/web/status',
      '',
      {
        verb: 'update',
        apiPrefix: 'apis',
        apiGroup: 'apps',
        apiVersion: 'v1',
        resource: 'deployments',
        name: 'web',
        subresource: 'status',
      },
    ],
    ['PATCH', '/apis/apps/v1/namespaces/d/deployments/web/scale', '', { verb: 'patch', subresource: 'scale' }],
    ['DELETE', '/apis/apps/v1/namespaces/d/deployments/web', '', { verb: 'delete', name: 'web' }],
    [
      'DELETE',
      '/apis/resource.k8s.io/v1beta1/namespaces/d/resourceclaims',
      '',
      { verb: 'deletecollection', apiGroup: 'resource.k8s.io', apiVersion: 'v1beta1', resource: 'resourceclaims', namespace: 'd' },
    ],
    ['GET', '/apis/resource.k8s.io/v1/deviceclasses', 'watch=true', { verb: 'watch', resource: 'deviceclasses' }],
    ['GET', '/apis/resource.k8s.io/v1/deviceclasses', 'watch=1', { verb: 'watch' }],
    ['GET', '/apis/resource.k8s.io/v1/deviceclasses', 'watch=', { verb: 'watch' }],
    ['GET', '/apis/resource.k8s.io/v1/deviceclasses', 'watch=false', { verb: 'list' }],
    ['GET', '/apis/resource.k8s.io/v1/deviceclasses', 'watch=FALSE', { verb: 'list' }],
    ['GET', '/apis/resource.k8s.io/v1/deviceclasses', 'watch=0', { verb: 'list' }],
    ['GET', '/apis/resource.k8s.io/v1/deviceclasses', '%77atch=true', { verb: 'watch' }],
    ['GET', '/apis/resource.k8s.io/v1/watch/deviceclasses', '', { verb: 'watch', resource: 'deviceclasses', parts: ['deviceclasses'] }],
    ['GET', '/apis/apps/v1/watch/namespaces/ns/deployments', '', { verb: 'watch', namespace: 'ns', resource: 'deployments' }],
    ['GET', '/apis/apps/v1/watch/namespaces/ns/deployments/web/status', '', { verb: 'watch', name: 'web', subresource: '' }],
    [
      'GET',
      '/api/v1/proxy/namespaces/ns/pods/p/a/b',
      '',
      { verb: 'proxy', namespace: 'ns', resource: 'pods', name: 'p', subresource: '', parts: ['pods', 'p', 'a', 'b'] },
    ],
    [
      'GET',
      '/api/v1/namespaces/foo/status',
      '',
      { verb: 'get', namespace: 'foo', resource: 'namespaces', name: 'foo', subresource: 'status' },
    ],
    ['PUT', '/api/v1/namespaces/foo/finalize', '', { verb: 'update', resource: 'namespaces', name: 'foo', subresource: 'finalize' }],
    ['GET', '/api/v1/namespaces/foo', '', { verb: 'get', namespace: 'foo', resource: 'namespaces', name: 'foo' }],
    ['GET', '/api/v1/namespaces', '', { verb: 'list', namespace: '', resource: 'namespaces' }],
    ['GET', '/api/v1/pods', 'fieldSelector=metadata.name%3Dweb', { verb: 'list', name: 'web' }],
    ['GET', '/api/v1/pods', 'fieldSelector=metadata.name%3D%3Dweb&watch=true', { verb: 'watch', name: 'web' }],
    ['GET', '/api/v1/pods', 'fieldSelector=metadata.name!%3Dweb', { verb: 'list', name: '' }],
    ['DELETE', '/api/v1/namespaces/d/pods', 'fieldSelector=metadata.name%3Dweb', { verb: 'deletecollection', name: '' }],
    ['GET', '/api/v1/pods/', '', { isResourceRequest: true, resource: 'pods', verb: 'list' }],
    ['GET', '/api/v1//pods', '', { isResourceRequest: true, resource: '', name: 'pods' }],
    ['OPTIONS', '/api/v1/pods', '', { isResourceRequest: true, verb: '' }],
    ['get', '/api/v1/pods/p', '', { isResourceRequest: true, verb: '' }],
  ])('%s %s ?%s', (method, path, query, expected) => {
    expect(requestInfo(method, path, query)).toMatchObject({ isResourceRequest: true, path, ...expected });
  });

  it('accepts parsed query parameters as well as a raw query string', () => {
    expect(requestInfo('GET', '/api/v1/pods', new URLSearchParams({ watch: 'true' })).verb).toBe('watch');
    expect(requestInfo('GET', '/api/v1/pods', new URLSearchParams({ fieldSelector: 'metadata.name=a' })).name).toBe('a');
    expect(requestInfo('GET', '/api/v1/pods').verb).toBe('list');
  });

  it.each([
    '/',
    '',
    '/api',
    '/api/v1',
    '/api/v1/',
    '/apis',
    '/apis/apps',
    '/apis/apps/v1',
    '/apis/apps/v1/',
    '/healthz',
    '/livez',
    '/readyz',
    '/version',
    '/metrics',
    '/openapi/v2',
    '/openapi/v3/apis/apps/v1',
    '/.well-known/openid-configuration',
    '/logs/kube-apiserver.log',
    '/apix/apps/v1/deployments',
    '/api/v1/watch',
    '/api/v1/proxy',
    '/apis/apps/v1/watch',
  ])('%s is not a resource request: H serves it (R2)', (path) => {
    const info = requestInfo('GET', path, '');
    expect(info).toMatchObject({ isResourceRequest: false, path, verb: 'get', apiGroup: '', apiVersion: '', resource: '', name: '' });
    expect(info.parts).toEqual([]);
  });

  it('lowercases the method as the verb of a non-resource request', () => {
    expect(requestInfo('POST', '/apis', '').verb).toBe('post');
  });
});

describe('exactMetadataName (fieldSelector as apimachinery parses it)', () => {
  it.each<[string, string | undefined]>([
    ['metadata.name=web', 'web'],
    ['metadata.name==web', 'web'],
    ['metadata.name!=web', undefined],
    ['metadata.namespace=d,metadata.name=web', 'web'],
    ['metadata.name=b,metadata.name=a', 'a'], // terms are taken in sorted order
    ['metadata.name = web', undefined], // the field is not trimmed
    ['metadata.name=a\\,b', 'a,b'],
    ['metadata.name=a\\=b', 'a=b'],
    ['metadata.name=a\\x', undefined], // unknown escape: the selector does not parse
    ['metadata.name=a=b', undefined], // unescaped "=" in a value
    ['metadata.name', undefined], // no operator: does not parse
    ['status.phase=Running', undefined],
    ['metadata.name=a/b', undefined], // not a valid path segment name
    ['metadata.name=..', undefined],
    ['metadata.name=50%', undefined],
    ['', undefined],
    [',metadata.name=web,', 'web'], // empty terms are skipped
  ])('%j → %j', (selector, name) => {
    expect(exactMetadataName(selector)).toBe(name);
  });
});

/**
 * A straightforward re-statement of R2 that slices arrays the way requestinfo.go does, to compare
 * the index-walking implementation against on generated paths.
 */
function reference(method: string, path: string): Omit<RequestInfo, 'path' | 'verb'> & { verb: string } {
  const none = {
    isResourceRequest: false,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [] as string[],
  };
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  let cur = trimmed === '' ? [] : trimmed.split('/');
  if (cur.length < 3 || (cur[0] !== 'api' && cur[0] !== 'apis')) return none;
  const apiPrefix = cur[0]!;
  cur = cur.slice(1);
  let apiGroup = '';
  if (apiPrefix === 'apis') {
    if (cur.length < 3) return none;
    apiGroup = cur[0]!;
    cur = cur.slice(1);
  }
  const apiVersion = cur[0]!;
  cur = cur.slice(1);
  let verb =
    ({ GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' } as Record<string, string>)[method] ?? '';
  let viaPrefix = false;
  if (cur[0] === 'watch' || cur[0] === 'proxy') {
    if (cur.length < 2) return none;
    verb = cur[0];
    cur = cur.slice(1);
    viaPrefix = true;
  }
  let namespace = '';
  if (cur[0] === 'namespaces' && cur.length > 1) {
    namespace = cur[1]!;
    if (cur.length > 2 && cur[2] !== 'status' && cur[2] !== 'finalize') cur = cur.slice(2);
  }
  const resource = cur[0] ?? '';
  const name = cur[1] ?? '';
  const subresource = cur.length >= 3 && !viaPrefix ? cur[2]! : '';
  if (name === '' && verb === 'get') verb = 'list';
  if (name === '' && verb === 'delete') verb = 'deletecollection';
  return { isResourceRequest: true, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts: cur };
}

describe('requestInfo properties', () => {
  const segment = fc.constantFrom(
    'api',
    'apis',
    'v1',
    'apps',
    'watch',
    'proxy',
    'namespaces',
    'ns',
    'status',
    'finalize',
    'pods',
    'log',
    'scale',
    '',
    'x',
  );
  const pathArb = fc
    .tuple(fc.array(segment, { maxLength: 9 }), fc.boolean(), fc.boolean())
    .map(([segs, lead, trail]) => `${lead ? '/' : ''}${segs.join('/')}${trail ? '/' : ''}`);
  const methodArb = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS');

  it('agrees with a slice-by-slice statement of R2 on generated paths', () => {
    fc.assert(
      fc.property(methodArb, pathArb, (method, path) => {
        const { path: p, ...got } = requestInfo(method, path, '');
        expect(p).toBe(path);
        expect(got).toEqual(reference(method, path));
      }),
      { numRuns: 3000 },
    );
  });

  it('a /watch/ path prefix names the same GVR, namespace and name as the plain path', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
    fc.assert(
      fc.property(fc.option(name, { nil: undefined }), name, fc.option(name, { nil: undefined }), (ns, resource, obj) => {
        const tail = `${ns ? `namespaces/${ns}/` : ''}${resource}${obj ? `/${obj}` : ''}`;
        const plain = requestInfo('GET', `/apis/resource.k8s.io/v1/${tail}`, '');
        const watched = requestInfo('GET', `/apis/resource.k8s.io/v1/watch/${tail}`, '');
        expect(watched.verb).toBe('watch');
        for (const k of ['apiGroup', 'apiVersion', 'resource', 'namespace', 'name'] as const) expect(watched[k]).toBe(plain[k]);
      }),
    );
  });
});
