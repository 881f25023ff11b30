// Arbitraries for request headers: Host, a browser's Origin and Sec-Fetch-Site, identity headers,
// Connection and hop-by-hop headers, Accept values, and random extra headers (avoiding the names the
// oracle models separately).
import fc from 'fast-check';
import { fieldValue, sometimes, token } from './arbitrary-helpers.js';
import type { BrowserMarks, HostSpec } from './request-spec.js';

export function hostArb(port: number): fc.Arbitrary<HostSpec> {
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

export function browserArb(port: number): fc.Arbitrary<BrowserMarks> {
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
export const identityArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant([] as (readonly [string, string])[]) },
  { weight: 1, arbitrary: fc.array(fc.tuple(identityName, fc.constantFrom('system:admin', 'system:masters', 'alice'))) },
);

export const connectionHeaderArb = fc.oneof(
  { weight: 12, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: fc.constant('keep-alive') },
  { weight: 1, arbitrary: fc.constant('close') },
  { weight: 4, arbitrary: fc.constantFrom('x-hop-a', 'x-hop-a, te', 'keep-alive, X-Hop-A, x-hop-b', ' x-hop-b ,, authorization') },
);
export const hopArb = fc.subarray(
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

export const ACCEPTS = [
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
export const extraArb = fc
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
