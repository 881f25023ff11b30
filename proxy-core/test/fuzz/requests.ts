// What the port fuzz sends: fast-check arbitraries for request *specs* (method, request target,
// version, Host, the marks a browser puts on a request from a page (Origin, Sec-Fetch-Site),
// identity and hop-by-hop headers, random headers, invalid header bytes, body framing). render.ts
// turns a spec into bytes on the wire and says what the port must do with it. Specs hold no ids, so
// fast-check can replay and shrink them.
import fc from 'fast-check';
import { REPLY_MODES, type FuzzGvr, type ReplyMode } from './upstream.js';

/** The fuzz cluster: three servers, each GVR served by some of them (spec §7 style skew). */
export const SERVERS: Record<string, readonly FuzzGvr[]> = (() => {
  const common: FuzzGvr[] = [
    { group: '', version: 'v1', resource: 'pods', namespaced: true },
    { group: '', version: 'v1', resource: 'configmaps', namespaced: true },
    { group: '', version: 'v1', resource: 'namespaces', namespaced: false },
    { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true },
  ];
  const deviceclasses: FuzzGvr = { group: 'resource.k8s.io', version: 'v1', resource: 'deviceclasses', namespaced: false };
  const widgets: FuzzGvr = { group: 'fuzz.example', version: 'v1', resource: 'widgets', namespaced: true };
  const gadgets: FuzzGvr = { group: 'fuzz.example', version: 'v2beta1', resource: 'gadgets', namespaced: true };
  return { fa: common, fb: [...common, deviceclasses, widgets], fc: [...common, widgets, gadgets] };
})();

export const SERVER_TOKEN = 'fuzz-server-token';
export const CLIENT_TOKEN = 'Bearer fuzz-client-token';
/** The limit the port sets on a request head (core.ts maxHeaderSize). */
export const PORT_MAX_HEAD = 64 * 1024;

// ---------------------------------------------------------------------------------------------
// Specs

export type MethodClass = 'standard' | 'odd' | 'unknown' | 'connect';
export interface MethodSpec {
  readonly name: string;
  readonly cls: MethodClass;
}

export type TargetSpec =
  | { readonly form: 'origin'; readonly path: string; readonly query: string }
  | { readonly form: 'absolute'; readonly url: string }
  | { readonly form: 'asterisk' }
  | { readonly form: 'authority'; readonly authority: string };

export type HostSpec =
  | { readonly kind: 'ok'; readonly value: string }
  | { readonly kind: 'foreign'; readonly value: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'empty' }
  | { readonly kind: 'duplicate'; readonly values: readonly string[] };

export type BodySpec =
  | { readonly kind: 'none' }
  | { readonly kind: 'length'; readonly body: Uint8Array }
  | {
      readonly kind: 'chunked';
      readonly body: Uint8Array;
      readonly cuts: readonly number[];
      readonly ext: boolean;
      readonly upper: boolean;
      readonly trailers: boolean;
    }
  /** Framing that the parser refuses, or that leaves the port waiting (short body). */
  | { readonly kind: 'bad'; readonly variant: BadFraming }
  /** A transfer coding other than chunked: the port must not forward it as if it were plain. */
  | { readonly kind: 'coded'; readonly te: string; readonly body: Uint8Array };

export type BadFraming =
  | 'cl-and-te'
  | 'cl-not-a-number'
  | 'cl-negative'
  | 'cl-duplicate'
  | 'cl-list'
  | 'chunk-size-garbage'
  | 'chunk-no-crlf'
  | 'te-unknown'
  | 'short-body'
  | 'long-body';

/** What a browser adds to a request a page sends: its Origin and Sec-Fetch-Site (either may be absent). */
export interface BrowserMarks {
  readonly origin: string | undefined;
  readonly fetchSite: string | undefined;
}

export type InvalidHeader =
  'name-space' | 'name-nul' | 'name-colon' | 'value-nul' | 'value-cr' | 'value-lf' | 'value-del' | 'obs-fold' | 'name-8bit';

export interface RequestSpec {
  readonly method: MethodSpec;
  readonly target: TargetSpec;
  readonly version: string;
  readonly host: HostSpec;
  /** undefined: a client that is not a browser (kubectl, curl), which sends neither mark. */
  readonly browser: BrowserMarks | undefined;
  readonly reply: ReplyMode;
  readonly identity: readonly (readonly [string, string])[];
  /** Connection header value (undefined: none) and the hop-by-hop headers sent beside it. */
  readonly connection: string | undefined;
  readonly hop: readonly (readonly [string, string])[];
  /** Upgrade request: Connection: Upgrade and this Upgrade value. */
  readonly upgrade: string | undefined;
  readonly peerProxied: string | undefined;
  readonly authorization: boolean;
  readonly accept: string | undefined;
  readonly expect: string | undefined;
  readonly extra: readonly (readonly [string, string])[];
  /** Pads the head to this many bytes with one large header (tests the 64 KiB limit from both sides). */
  readonly padTo: number;
  readonly invalidHeader: InvalidHeader | undefined;
  readonly body: BodySpec;
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** `arb` about once in `oneIn` draws, else undefined. (fc.option's `freq` is the other way round.) */
function sometimes<T>(arb: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
}

const TCHAR = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const token = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...TCHAR.split('')), minLength: min, maxLength: max });
/** Field-value bytes a parser must accept: visible ASCII, space, tab inside, obs-text. */
const valueChar = fc
  .oneof(
    { weight: 20, arbitrary: fc.integer({ min: 0x21, max: 0x7e }) },
    { weight: 2, arbitrary: fc.constant(0x20) },
    { weight: 1, arbitrary: fc.constant(0x09) },
    { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  )
  .map((c) => String.fromCharCode(c));
const fieldValue = (max: number) =>
  fc.string({ unit: valueChar, minLength: 1, maxLength: max }).map((v) => v.replace(/^[ \t]+|[ \t]+$/g, '') || 'v');

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

const targetArb: fc.Arbitrary<TargetSpec> = fc.oneof(
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

const methodArb: fc.Arbitrary<MethodSpec> = fc.oneof(
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

function hostArb(port: number): fc.Arbitrary<HostSpec> {
  const ok = [
    'localhost',
    `localhost:${port}`,
    `127.0.0.1:${port}`,
    '127.0.0.1',
    '[::1]',
    `[::1]:${port}`,
    'LocalHost',
    `LOCALHOST:${port}`,
  ];
  const foreign = [
    'evil.example',
    `evil.example:${port}`,
    'localhost:1',
    '127.0.0.2',
    'localhost.',
    `127.0.0.1.nip.io:${port}`,
    '::1',
    `localhost:0${port}`,
    'localhost.evil.example',
  ];
  return fc.oneof(
    { weight: 85, arbitrary: fc.constantFrom(...ok).map((value) => ({ kind: 'ok' as const, value })) },
    { weight: 6, arbitrary: fc.constantFrom(...foreign).map((value) => ({ kind: 'foreign' as const, value })) },
    { weight: 2, arbitrary: fc.constant({ kind: 'missing' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'empty' as const }) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom(...ok), fc.constantFrom(...ok, ...foreign))
        .chain(([a, b]) => fc.constantFrom([a, b], [b, a]))
        .map((values) => ({ kind: 'duplicate' as const, values })),
    },
  );
}

function browserArb(port: number): fc.Arbitrary<BrowserMarks> {
  const origins = [
    'http://evil.example',
    'https://evil.example:8443',
    'null',
    'NULL',
    `http://127.0.0.1:${port}`,
    `http://localhost:${port}`,
    `http://127.0.0.1:${port + 1}`,
    `https://127.0.0.1:${port}`,
    'http://localhost',
    'http://evil.example, http://127.0.0.1',
  ];
  return fc.record({
    origin: fc.option(fc.constantFrom(...origins), { freq: 3 }).map((o) => o ?? undefined),
    fetchSite: fc
      .option(fc.constantFrom('cross-site', 'same-site', 'same-origin', 'none', 'Cross-Site'), { freq: 3 })
      .map((o) => o ?? undefined),
  });
}

const identityName = fc
  .tuple(
    fc.constantFrom(
      'x-remote-user',
      'x-remote-uid',
      'x-remote-group',
      'x-remote-extra-scopes',
      'x-remote-extra-authentication.kubernetes.io%2fpod-name',
    ),
    fc.nat(),
  )
  .map(([n, seed]) => [...n].map((c, i) => ((seed >> (i % 30)) & 1 ? c.toUpperCase() : c)).join(''));
const identityArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant([] as (readonly [string, string])[]) },
  { weight: 1, arbitrary: fc.array(fc.tuple(identityName, fc.constantFrom('system:admin', 'system:masters', 'alice'))) },
);

const connectionHeaderArb = fc.oneof(
  { weight: 12, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: fc.constant('keep-alive') },
  { weight: 1, arbitrary: fc.constant('close') },
  { weight: 4, arbitrary: fc.constantFrom('x-hop-a', 'x-hop-a, te', 'keep-alive, X-Hop-A, x-hop-b', ' x-hop-b ,, authorization') },
);
const hopArb = fc.subarray(
  [
    ['te', 'trailers'],
    ['keep-alive', 'timeout=1'],
    ['proxy-authorization', 'Basic Zm9vOmJhcg=='],
    ['proxy-connection', 'keep-alive'],
    ['trailer', 'x-checksum'],
    ['upgrade', 'h2c'],
    ['x-hop-a', 'hop value a'],
    ['x-hop-b', 'hop value b'],
  ] as const,
  { maxLength: 4 },
);

const ACCEPTS = [
  'application/json',
  '*/*',
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer',
  'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  'application/json;as=Table;v=v1;g=meta.k8s.io, application/json',
];

/** Header names the random ones must avoid: those the oracle models separately. */
const RESERVED =
  /^(host|origin|sec-fetch-.*|content-length|transfer-encoding|connection|expect|upgrade|te|trailer|keep-alive|proxy-.*|x-remote-.*|x-fuzz-.*|authorization|x-kubernetes-peer-proxied|accept|content-type|cookie|set-cookie|user-agent|referer|from|location|max-forwards|retry-after|etag|last-modified|server|age|expires|if-modified-since|if-unmodified-since)$/i;
const extraArb = fc
  .array(fc.tuple(token(1, 24), fieldValue(120)), { maxLength: 6 })
  .chain((hs) => fc.tuple(fc.constant(hs), sometimes(fc.nat(), 4), sometimes(fc.integer({ min: 40, max: 120 }), 40)))
  .map(([hs, dupOf, many]) => {
    const out: (readonly [string, string])[] = hs.map(([n, v]) => [`x-r-${n}`, v] as const).filter(([n]) => !RESERVED.test(n));
    // A repeated header (Node joins repeats with ", ").
    if (dupOf !== undefined && out.length) out.push([out[dupOf % out.length]![0], 'repeated']);
    // Many small headers.
    if (many !== undefined) for (let i = 0; i < many; i++) out.push([`x-many-${i}`, `v${i}`]);
    return out;
  });

// Mostly small bodies; now and then 16–70 KB, and rarely 1 MiB (each costs the fuzz time, not the port).
const bodyBytes = fc.oneof(
  { weight: 400, arbitrary: fc.uint8Array({ minLength: 0, maxLength: 64 }) },
  { weight: 300, arbitrary: fc.uint8Array({ minLength: 65, maxLength: 4_096 }) },
  { weight: 12, arbitrary: fc.integer({ min: 16_000, max: 70_000 }).map((n) => new Uint8Array(n).fill(0x5a)) },
  { weight: 1, arbitrary: fc.constant(new Uint8Array(1024 * 1024).fill(0x4d)) },
);
const bodyArb: fc.Arbitrary<BodySpec> = fc.oneof(
  { weight: 20, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 16, arbitrary: bodyBytes.map((body) => ({ kind: 'length' as const, body })) },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('chunked' as const),
      body: bodyBytes,
      cuts: fc.array(fc.nat(), { maxLength: 5 }),
      ext: fc.boolean(),
      upper: fc.boolean(),
      trailers: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<BadFraming>(
        'cl-and-te',
        'cl-not-a-number',
        'cl-negative',
        'cl-duplicate',
        'cl-list',
        'chunk-size-garbage',
        'chunk-no-crlf',
        'te-unknown',
        'short-body',
        'long-body',
      )
      .map((variant) => ({ kind: 'bad' as const, variant })),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('coded' as const),
      te: fc.constantFrom('gzip, chunked', 'deflate,chunked', 'x-custom, chunked'),
      body: fc.uint8Array({ minLength: 1, maxLength: 200 }),
    }),
  },
);

export function requestArb(port: number): fc.Arbitrary<RequestSpec> {
  return fc.record({
    method: methodArb,
    target: targetArb,
    version: fc.oneof(
      { weight: 60, arbitrary: fc.constant('HTTP/1.1') },
      { weight: 1, arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.2', 'HTTP/1', 'http/1.1', 'HTTPS/1.1', 'HTTP/1.1 x') },
    ),
    host: hostArb(port),
    browser: sometimes(browserArb(port), 8),
    reply: fc.oneof(
      { weight: 60, arbitrary: fc.constant<ReplyMode>('json') },
      {
        weight: 30,
        arbitrary: fc.constantFrom<ReplyMode>(
          ...REPLY_MODES.filter((m) => m !== 'json' && m !== 'big' && m !== 'reset' && m !== 'garbage' && m !== 'cut-mid-body'),
        ),
      },
      { weight: 3, arbitrary: fc.constantFrom<ReplyMode>('reset', 'garbage', 'cut-mid-body') },
      { weight: 1, arbitrary: fc.constant<ReplyMode>('big') },
    ),
    identity: identityArb,
    connection: connectionHeaderArb,
    hop: hopArb,
    upgrade: sometimes(fc.constantFrom('websocket', 'SPDY/3.1', 'h2c'), 50),
    peerProxied: sometimes(fc.constantFrom('true', 'false', 'TRUE', 'true '), 12),
    authorization: fc.boolean(),
    accept: sometimes(fc.constantFrom(...ACCEPTS), 3),
    expect: sometimes(fc.constantFrom('100-continue', '100-Continue', 'foo', '200-ok'), 40),
    extra: extraArb,
    padTo: fc.oneof({ weight: 60, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(20_000, 50_000, 80_000, 200_000) }),
    invalidHeader: sometimes(
      fc.constantFrom<InvalidHeader>(
        'name-space',
        'name-nul',
        'name-colon',
        'value-nul',
        'value-cr',
        'value-lf',
        'value-del',
        'obs-fold',
        'name-8bit',
      ),
      60,
    ),
    body: bodyArb,
  });
}

/** One connection: a few requests sent back to back (pipelined); the last may end the connection. */
export function connectionArb(port: number): fc.Arbitrary<RequestSpec[]> {
  return fc.array(requestArb(port), { minLength: 1, maxLength: 16 });
}

// ---------------------------------------------------------------------------------------------
