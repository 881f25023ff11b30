// forward() back-pressure: a client that never reads stalls the upstream within bounded bytes.
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Upstreams } from './pool.js';
import { startHttpUpstream, startProxy, within, type TestServer } from '../../test/upstream-fixtures.js';
import { useForwardFixtures } from '../../test/forward-fixtures.js';

const { cleanups } = useForwardFixtures();

describe('back-pressure', () => {
  let upstream: TestServer;
  let upstreams: Upstreams;
  let written = 0;
  let waitingForDrain = false;
  let upstreamClosed: Promise<void>;
  const TOTAL = 512 * 1024 * 1024;
  const CHUNK = Buffer.alloc(64 * 1024, 0x61);

  beforeAll(async () => {
    let onClosed: () => void = () => undefined;
    upstreamClosed = new Promise<void>((resolve) => (onClosed = resolve));
    // Plain HTTP keeps this test about buffering, not encryption cost.
    upstream = await startHttpUpstream((_req, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(TOTAL) });
      res.on('close', () => onClosed());
      const pump = () => {
        while (written < TOTAL && !res.destroyed) {
          written += CHUNK.length;
          if (!res.write(CHUNK)) {
            waitingForDrain = true;
            return void res.once('drain', () => {
              waitingForDrain = false;
              pump();
            });
          }
        }
        res.end();
      };
      pump();
    });
    upstreams = new Upstreams([{ name: 'a', url: upstream.url }]);
  });
  afterAll(async () => {
    await upstreams?.destroy();
    await upstream?.close();
  });

  it('a client that never reads stalls the upstream within bounded bytes', async () => {
    const proxy = await startProxy(upstreams, 'a');
    cleanups.push(() => proxy.close());
    const client = connect(proxy.port, '127.0.0.1');
    await once(client, 'connect');
    client.pause();
    client.write('GET /api/v1/pods HTTP/1.1\r\nHost: localhost\r\n\r\n');

    // Wait until the upstream sits on a full socket and makes no progress for a while.
    let last = -1;
    for (let i = 0; i < 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (waitingForDrain && written === last) break;
      last = written;
    }
    expect(waitingForDrain).toBe(true);
    // Only socket buffers (kernel and stream high-water marks) hold bytes; nothing grows in the proxy.
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(written).toBeLessThan(TOTAL);

    client.destroy();
    await within(upstreamClosed, 10_000, 'the upstream response stayed open after the client left');
    expect((await proxy.nextResult()).error?.code).toBe('PEERSCOPE_ERR_CLIENT_ABORTED');
  });
});
