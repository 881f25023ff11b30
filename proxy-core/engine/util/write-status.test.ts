// writeStatus and writeStatusToSocket over real sockets: what a client actually receives.
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { failure } from './status.js';
import { writeStatus, writeStatusToSocket } from './write-status.js';

const forbidden = failure(403, 'Forbidden', 'Host header "évil.example" is not allowed');
const servers: Array<Server | ReturnType<typeof createTcpServer>> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((resolve) => s.close(() => resolve()));
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const server = createServer(handler);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

function fetchRaw(port: number, method = 'GET'): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: '/', agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('writeStatus', () => {
  it('writes the Status as JSON with its code, Content-Type and a byte-exact Content-Length', async () => {
    let written = 0;
    const port = await serve((_req, res) => {
      written = writeStatus(res, forbidden, { 'x-peerscope-route': 'handling=-; answering=-; outcome=rejected' });
    });
    const answer = await fetchRaw(port);
    expect(answer.status).toBe(403);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['x-peerscope-route']).toBe('handling=-; answering=-; outcome=rejected');
    // The message has a non-ASCII character: the length counts bytes, not characters.
    expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    expect(written).toBe(answer.body.length);
    expect(JSON.parse(answer.body.toString('utf8'))).toEqual(forbidden);
  });

  it('sends no body to a HEAD request', async () => {
    const port = await serve((_req, res) => writeStatus(res, forbidden));
    const answer = await fetchRaw(port, 'HEAD');
    expect(answer.status).toBe(403);
    expect(answer.body.length).toBe(0);
  });

  it('cuts the connection when headers were already sent (a Status cannot follow them)', async () => {
    const port = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"kind":"PodList"');
      writeStatus(res, forbidden);
    });
    const outcome = await new Promise<string>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
        res.on('data', () => undefined);
        res.on('aborted', () => resolve('aborted'));
        res.on('error', () => resolve('aborted'));
        res.on('end', () => resolve('complete'));
      });
      req.on('error', () => resolve('aborted'));
      req.end();
    });
    expect(outcome).toBe('aborted');
  });
});

describe('writeStatusToSocket', () => {
  it('writes an HTTP/1.1 response with the Status and closes the socket', async () => {
    const server = createTcpServer((socket) => {
      socket.once('data', () =>
        writeStatusToSocket(socket, failure(503, 'ServiceUnavailable', 'no peer'), {
          'x-peerscope-route': 'handling=a; answering=-; outcome=unavailable',
        }),
      );
    });
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    client.write('GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    const chunks: Buffer[] = [];
    client.on('data', (c: Buffer) => chunks.push(c));
    await once(client, 'close');
    const text = Buffer.concat(chunks).toString('utf8');
    const [head, body = ''] = text.split('\r\n\r\n');
    const lines = (head ?? '').split('\r\n');
    expect(lines[0]).toBe('HTTP/1.1 503 Service Unavailable');
    expect(lines).toContain('content-type: application/json');
    expect(lines).toContain('connection: close');
    expect(lines).toContain('x-peerscope-route: handling=a; answering=-; outcome=unavailable');
    expect(lines).toContain(`content-length: ${Buffer.byteLength(body)}`);
    expect(JSON.parse(body)).toMatchObject({ kind: 'Status', code: 503, reason: 'ServiceUnavailable', message: 'no peer' });
  });

  it('destroys a socket that can no longer be written', () => {
    const socket = new PassThrough();
    socket.end();
    writeStatusToSocket(socket, forbidden);
    expect(socket.destroyed).toBe(true);
  });
});
