// Shared setup for the forward() tests (proxy-core/engine/upstream/forward-*.test.ts): an HTTPS upstream
// named "a" behind a test proxy, a proxy in front of any URL, and small body helpers.
import type { Status } from '../engine/util/status.js';
import { Upstreams } from '../engine/upstream/pool.js';
import { startHttpsUpstream, startProxy, useUpstreamFixtures, type Handler } from './upstream-fixtures.js';

export const ROUTE = { 'x-peerscope-route': 'handling=a; answering=a; outcome=local' };
export const UNAVAILABLE = { 'x-peerscope-route': 'handling=a; answering=-; outcome=unavailable' };

export function watchEvents(count: number): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < count; i++)
    lines.push(
      JSON.stringify({
        type: 'ADDED',
        object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: `cm-${i}`, resourceVersion: String(i + 1) } },
      }) + '\n',
    );
  return Buffer.from(lines.join(''));
}

export function statusOf(body: Buffer): Status {
  return JSON.parse(body.toString('utf8')) as Status;
}

/** Registers the TLS material and per-test cleanup hooks in the calling test file; returns its setup helpers. */
export function useForwardFixtures() {
  const { tls, cleanups } = useUpstreamFixtures();

  /** An HTTPS upstream named "a" behind a proxy; returns the proxy and the upstream. */
  async function setUp(
    handler: Handler,
    options: {
      ca?: string;
      servername?: string;
      token?: string;
      headersTimeoutMs?: number;
      forward?: Parameters<typeof startProxy>[2];
    } = {},
  ) {
    const upstream = await startHttpsUpstream(tls, handler);
    const upstreams = new Upstreams(
      [
        {
          name: 'a',
          url: upstream.url,
          ca: options.ca ?? tls.ca.cert,
          ...(options.servername ? { servername: options.servername } : {}),
          ...(options.token ? { bearerToken: () => options.token } : {}),
        },
      ],
      options.headersTimeoutMs ? { headersTimeoutMs: options.headersTimeoutMs } : {},
    );
    const proxy = await startProxy(
      upstreams,
      'a',
      options.forward ?? { forward: { responseHeaders: ROUTE, errorResponseHeaders: UNAVAILABLE } },
    );
    cleanups.push(
      () => upstream.close(),
      () => upstreams.destroy(),
      () => proxy.close(),
    );
    return { upstream, upstreams, proxy };
  }

  /** A proxy in front of an arbitrary URL (refused ports, raw TCP servers). */
  async function proxyTo(url: string, options: { connectTimeoutMs?: number; headersTimeoutMs?: number } = {}) {
    const upstreams = new Upstreams([{ name: 'a', url, ca: tls.ca.cert }], options);
    const proxy = await startProxy(upstreams, 'a', { forward: { responseHeaders: ROUTE, errorResponseHeaders: UNAVAILABLE } });
    cleanups.push(
      () => upstreams.destroy(),
      () => proxy.close(),
    );
    return proxy;
  }

  return { tls, cleanups, setUp, proxyTo };
}
