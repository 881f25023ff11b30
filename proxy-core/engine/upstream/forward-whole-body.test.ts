// forward() reads a small request body of declared length whole before sending (WHOLE_BODY_MAX_BYTES):
// the bytes arrive exact on both sides of the limit, and a client that leaves mid-body sends nothing upstream.
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { ForwardResult } from './forward.js';
import { WHOLE_BODY_MAX_BYTES } from './forward.js';
import { readBody, send } from '../../test/upstream-fixtures.js';
import { useForwardFixtures } from '../../test/forward-fixtures.js';

const { setUp } = useForwardFixtures();
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('small request bodies are read whole, then sent', () => {
  it.each([1, 2_200, WHOLE_BODY_MAX_BYTES, WHOLE_BODY_MAX_BYTES + 1])(
    'a body of %i bytes arrives byte-identical with its length',
    async (size) => {
      const body = randomBytes(size);
      const seen: { hash: string; length: string | undefined; chunked: string | undefined }[] = [];
      const { proxy } = await setUp((req, res) => {
        void readBody(req).then((received) => {
          seen.push({ hash: sha(received), length: req.headers['content-length'], chunked: req.headers['transfer-encoding'] });
          res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
        });
      });
      const answer = await send(`${proxy.url}/api/v1/namespaces/d/configmaps`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'content-length': size },
      });
      expect(answer.status).toBe(201);
      expect(seen).toEqual([{ hash: sha(body), length: String(size), chunked: undefined }]);
      expect(((await proxy.nextResult()) as ForwardResult).bytesIn).toBe(size);
    },
  );

  it('a client that leaves before its body is complete sends nothing upstream: the client aborted', async () => {
    let upstreamRequests = 0;
    const { proxy } = await setUp((_req, res) => {
      upstreamRequests++;
      res.end();
    });
    const socket = connect(Number(new URL(proxy.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /api/v1/namespaces/d/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"kind":',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    const result = (await proxy.nextResult()) as ForwardResult;
    expect(result.error?.code).toBe('PEERSCOPE_ERR_CLIENT_ABORTED');
    expect(result.headersSent).toBe(false);
    expect(upstreamRequests).toBe(0);
  });
});
