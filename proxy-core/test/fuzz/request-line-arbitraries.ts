// Arbitraries for the request line's method and target: Kubernetes resource paths, non-resource
// and control paths, mutated paths (dot segments, encodings, huge or odd characters), queries, and
// the absolute, asterisk and authority target forms.
import fc from 'fast-check';
import { sometimes } from './arbitrary-helpers.js';
import type { MethodSpec, TargetSpec } from './request-spec.js';

const SEGMENT_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@".split('');
const GROUPS = ['', '', 'apps', 'resource.k8s.io', 'fuzz.example', 'unknown.example', 'batch'];
const VERSIONS = ['v1', 'v1', 'v1', 'v2beta1', 'v1alpha1', 'v9'];
const RESOURCES = ['pods', 'configmaps', 'namespaces', 'deployments', 'deviceclasses', 'widgets', 'gadgets', 'nothings', 'status'];
const NAMESPACES = ['default', 'd', 'kube-system', 'fuzz'];
const SUBRESOURCES = ['status', 'log', 'scale', 'exec', 'finalize', 'x'];

/** Percent-encodes some characters of a path, as a client may (the port must route it as decoded). */
function encodeSome(path: string, picks: readonly number[]): string {
  const chars = [...path];
  for (const p of picks) {
    const i = p % chars.length;
    const c = chars[i] as string;
    if (!/^[a-z0-9.]$/i.test(c)) continue;
    const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
    chars[i] = `%${p % 2 ? hex.toUpperCase() : hex}`;
  }
  return chars.join('');
}

const kubePath = fc
  .record({
    group: fc.constantFrom(...GROUPS),
    version: fc.constantFrom(...VERSIONS),
    special: sometimes(fc.constantFrom('watch', 'proxy'), 12),
    namespace: sometimes(fc.constantFrom(...NAMESPACES), 2),
    resource: fc.constantFrom(...RESOURCES),
    name: sometimes(fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,20}$/), 2),
    sub: sometimes(fc.constantFrom(...SUBRESOURCES), 6),
    encode: fc.oneof(
      { weight: 5, arbitrary: fc.constant([] as number[]) },
      { weight: 1, arbitrary: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }) },
    ),
  })
  .map((p) => {
    const segs = [
      p.group ? 'apis' : 'api',
      ...(p.group ? [p.group] : []),
      p.version,
      ...(p.special ? [p.special] : []),
      ...(p.namespace ? ['namespaces', p.namespace] : []),
      p.resource,
      ...(p.name ? [p.name] : []),
      ...(p.name && p.sub ? [p.sub] : []),
    ];
    return encodeSome(`/${segs.join('/')}`, p.encode);
  });

const nonResourcePath = fc.constantFrom(
  '/version',
  '/healthz',
  '/livez',
  '/readyz',
  '/openapi/v2',
  '/openapi/v3',
  '/apis',
  '/api',
  '/api/v1',
  '/apis/apps/v1',
  '/apis/fuzz.example',
  '/',
  '/metrics',
  '/.well-known/openid-configuration',
);
const controlPath = fc.constantFrom('/.peerscope/metrics', '/.peerscope/snapshot', '/.peerscope/nothing', '/.peerscope/');

type Mutation = (path: string, at: number) => string;
const MUTATIONS: Record<string, Mutation> = {
  dot: (p, at) => insertSegment(p, at, '.'),
  dotdot: (p, at) => insertSegment(p, at, '..'),
  encodedDotdot: (p, at) => insertSegment(p, at, at % 2 ? '%2e%2e' : '%2E.'),
  traversal: (p) => `${p}/../../../../.peerscope/snapshot`,
  doubleSlash: (p, at) => p.replace(/\//g, (m, i: number) => (i === nthSlash(p, at) ? '//' : m)),
  encodedSlash: (p, at) => p.replace(/\//g, (m, i: number) => (i > 0 && i === nthSlash(p, at) ? (at % 2 ? '%2F' : '%2f') : m)),
  unicodeEncoded: (p, at) => insertSegment(p, at, ['%C3%A9', '%E2%98%83', '%F0%9F%9A%80', '%C0%AF', '%FF%FE'][at % 5] as string),
  badEscape: (p, at) => `${p}${['%', '%z1', '%4', '%%', '%G0'][at % 5] as string}`,
  fragment: (p) => `${p}#frag`,
  oddChars: (p, at) => `${p}${['|', '{x}', '\\', '^', '`', '"', '<>'][at % 7] as string}`,
  huge: (p, at) => `${p}/${'x'.repeat([1_000, 8_000, 30_000][at % 3] as number)}`,
  hugeOver: (p) => `${p}/${'y'.repeat(70_000)}`,
  rawUnicode: (p) => `${p}/${Buffer.from('ünï☃', 'utf8').toString('latin1')}`,
  control: (p, at) => `${p}${['\x01', '\x7f', '\x00', ' x'][at % 4] as string}`,
};
function nthSlash(p: string, at: number): number {
  const idx: number[] = [];
  for (let i = 0; i < p.length; i++) if (p[i] === '/') idx.push(i);
  return idx[at % idx.length] ?? 0;
}
function insertSegment(p: string, at: number, seg: string): string {
  const i = nthSlash(p, at + 1);
  return i === 0 ? `${p}/${seg}` : `${p.slice(0, i)}/${seg}${p.slice(i)}`;
}
const weirdPath = fc
  .tuple(
    fc.oneof(kubePath, nonResourcePath),
    fc.array(fc.tuple(fc.constantFrom(...Object.keys(MUTATIONS)), fc.nat(50)), { minLength: 1, maxLength: 3 }),
  )
  .map(([p, muts]) => muts.reduce((acc, [m, at]) => (MUTATIONS[m] as Mutation)(acc, at), p));

const queryArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant('') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'watch=true',
      'watch=1',
      'watch=false',
      'watch=0',
      '%77atch=1',
      'limit=500',
      'fieldSelector=metadata.name%3Dweb',
      'labelSelector=app%3Dx,tier!%3Dy',
      'timeoutSeconds=1&watch=true',
      'follow=true',
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...'abc=&%+;?/:@x0'.split('')), maxLength: 30 }) },
);

export const targetArb: fc.Arbitrary<TargetSpec> = fc.oneof(
  { weight: 60, arbitrary: fc.record({ form: fc.constant('origin' as const), path: kubePath, query: queryArb }) },
  { weight: 8, arbitrary: fc.record({ form: fc.constant('origin' as const), path: nonResourcePath, query: queryArb }) },
  { weight: 2, arbitrary: fc.record({ form: fc.constant('origin' as const), path: controlPath, query: fc.constant('') }) },
  { weight: 14, arbitrary: fc.record({ form: fc.constant('origin' as const), path: weirdPath, query: queryArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      form: fc.constant('origin' as const),
      path: fc.string({ unit: fc.constantFrom(...SEGMENT_CHARS, '/', '%'), minLength: 1, maxLength: 60 }).map((s) => `/${s}`),
      query: fc.constant(''),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      form: fc.constant('absolute' as const),
      url: fc.constantFrom(
        'http://evil.example/api/v1/pods',
        'http://localhost/api/v1/pods',
        'https://127.0.0.1/version',
        'http://localhost:1/apis',
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ form: 'asterisk' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ form: fc.constant('authority' as const), authority: fc.constantFrom('localhost:443', 'evil.example:80') }),
  },
);

export const methodArb: fc.Arbitrary<MethodSpec> = fc.oneof(
  { weight: 40, arbitrary: fc.constant({ name: 'GET', cls: 'standard' as const }) },
  {
    weight: 16,
    arbitrary: fc.constantFrom(
      ...['POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].map((name) => ({ name, cls: 'standard' as const })),
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      ...['PROPFIND', 'TRACE', 'MKCOL', 'PURGE', 'LOCK', 'SEARCH', 'REPORT', 'COPY', 'LINK'].map((name) => ({ name, cls: 'odd' as const })),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...['BREW', 'get', 'G3T', 'FOO-BAR', 'GET\x00', 'ÉTÉ'].map((name) => ({ name, cls: 'unknown' as const }))),
  },
  { weight: 1, arbitrary: fc.constant({ name: 'CONNECT', cls: 'connect' as const }) },
);
