// Shared setup for the port's origin tests (issue 20): a bed of simulated apiservers whose every
// request is logged by a test id, and the plain and upgrade requests the tests send through the port.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, expect } from 'vitest';
import type { SimRequestRecord } from '../sim/apiserver/server.js';
import { A_GVRS, startBed, type Bed } from './harness.js';

export const TEST_ID = 'x-origin-test-id';
export let bed: Bed;
/** Every request an apiserver received, by the test id it carried. */
export const seen = new Map<string, SimRequestRecord>();
let nextId = 0;
export const freshId = () => `t${++nextId}-${randomBytes(4).toString('hex')}`;

/** Starts the bed (two simulated apiservers over HTTPS behind a port, with a pod named shell) for the calling file. */
export function useOriginBed(): void {
  beforeAll(async () => {
    bed = await startBed({ a: A_GVRS, b: A_GVRS }, {}, { http: false });
    bed.sim.onRequest((_server, r) => {
      const id = r.headers[TEST_ID];
      if (typeof id === 'string') seen.set(id, r);
    });
    const pod = await bed.send(
      'POST',
      '/api/v1/namespaces/default/pods',
      { 'content-type': 'application/json' },
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'shell', namespace: 'default' } }),
    );
    expect(pod.status).toBe(201);
  });
  afterAll(async () => {
    await bed?.close();
  });
}

/** A request through `core`'s port (default: the bed's), tagged so the apiservers' log can be searched. */
export async function send(method: string, path: string, headers: Record<string, string>, body?: string, url = bed.url) {
  const id = freshId();
  const res = await request(`${url}${path}`, { method, headers: { ...headers, [TEST_ID]: id }, ...(body !== undefined ? { body } : {}) });
  const text = await res.body.text();
  return {
    id,
    status: res.statusCode,
    route: String(res.headers['x-peerscope-route'] ?? ''),
    contentType: String(res.headers['content-type'] ?? ''),
    body: text,
    reached: () => seen.has(id),
  };
}

/** A raw upgrade handshake (as a browser's WebSocket or kubectl's SPDY client sends it); the answer's head and body. */
export function handshake(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ id: string; status: number; head: string; body: string; reached: () => boolean }> {
  const id = freshId();
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const lines = [
      `${method} ${path} HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      'Connection: Upgrade',
      `${TEST_ID}: ${id}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    const done = () => {
      socket.destroy();
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ id, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), head, body, reached: () => seen.has(id) });
    };
    socket.on('data', (c: Buffer) => {
      data += c.toString('latin1');
      // A 101 leaves the tunnel open: its head is the whole answer.
      if (/^HTTP\/1\.1 101/.test(data) && data.includes('\r\n\r\n')) done();
    });
    socket.on('end', done);
    socket.on('error', reject);
    setTimeout(done, 5_000);
  });
}

export const websocketHeaders = (extra: Record<string, string> = {}) => ({
  Upgrade: 'websocket',
  'Sec-WebSocket-Version': '13',
  'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
  'Sec-WebSocket-Protocol': 'v5.channel.k8s.io',
  ...extra,
});
export const spdyHeaders = (extra: Record<string, string> = {}) => ({
  Upgrade: 'SPDY/3.1',
  'X-Stream-Protocol-Version': 'v4.channel.k8s.io',
  'Content-Length': '0',
  ...extra,
});

export function expectRefusedStatus(r: { status: number; body: string }, message: RegExp): void {
  expect(r.status).toBe(403);
  expect(JSON.parse(r.body)).toMatchObject({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: 403,
    reason: 'Forbidden',
    message: expect.stringMatching(message),
  });
}

export const portOf = (url: string) => Number(new URL(url).port);
export const configMap = (name: string) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { a: '1' } });
