import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as undiciIndex from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, buildConnector, Pool, request } from './undici.js';

describe('undici, loaded module by module', () => {
  it('hands out the very classes and functions undici exports', () => {
    expect(Pool).toBe(undiciIndex.Pool);
    expect(Agent).toBe(undiciIndex.Agent);
    expect(buildConnector).toBe(undiciIndex.buildConnector);
  });

  describe('request()', () => {
    const seen: { method?: string; url?: string; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, body });
        res.writeHead(201, { 'content-type': 'text/plain', 'x-echo': req.headers['x-test'] ?? '' }).end(`${req.method} ${req.url}`);
      });
    });
    let base = '';
    const agent = new Agent();
    beforeAll(async () => {
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await agent.close();
      server.close();
    });

    it('sends the method, path with its query, headers and body, and reads the answer', async () => {
      const res = await request(`${base}/apis/x/v1/things?watch=1&rv=5`, {
        dispatcher: agent,
        method: 'POST',
        headers: { 'x-test': 'yes' },
        body: '{"a":1}',
      });
      expect(res.statusCode).toBe(201);
      expect(res.headers['x-echo']).toBe('yes');
      expect(await res.body.text()).toBe('POST /apis/x/v1/things?watch=1&rv=5');
      expect(seen.at(-1)).toEqual({ method: 'POST', url: '/apis/x/v1/things?watch=1&rv=5', body: '{"a":1}' });
    });

    it('is a GET by default and takes a URL object', async () => {
      const res = await request(new URL('/version', base), { dispatcher: agent });
      expect(await res.body.text()).toBe('GET /version');
    });
  });
});
