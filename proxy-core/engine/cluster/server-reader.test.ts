// The core's own reads: a 401 to a request that carried the credential asks for a fresh one (an exec
// plugin runs again, a token file is re-read), as client-go does; a read without a token does not.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AgentServerReader } from './server-reader.js';

describe('AgentServerReader', () => {
  it('reports a 401 to the credential source, then reads with the fresh token', async () => {
    const server = http.createServer((req, res) => {
      res.writeHead(req.headers.authorization === 'Bearer fresh' ? 200 : 401).end('{}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let token = 'revoked';
    let told = 0;
    const reader = new AgentServerReader({
      name: 'a',
      url,
      bearerToken: () => token,
      onUnauthorized: () => {
        told++;
        token = 'fresh';
      },
    });
    const anonymous = new AgentServerReader({
      name: 'b',
      url,
      onUnauthorized: () => {
        told += 100;
      },
    });
    try {
      expect((await reader.get('/apis')).status).toBe(401);
      expect(told).toBe(1);
      expect((await reader.get('/apis')).status).toBe(200);
      expect((await anonymous.get('/apis')).status).toBe(401);
      expect(told).toBe(1);
    } finally {
      await reader.close();
      await anonymous.close();
      server.close();
    }
  });
});
