// Issue 20: a web page in the operator's browser cannot use the local port. The port adds the
// operator's credential (here the simulated cluster's bearer token, over HTTPS) to every request that
// brings none, so every request a browser marks as from another origin — plain, form-like, WebSocket
// or SPDY upgrade, or to the port's own endpoints — gets a 403 Status and reaches no apiserver, while
// clients that send no such mark (kubectl, curl, client-go) work as before. Real sockets throughout.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { request, WebSocket } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core, type CoreOptions } from '../src/core.js';
import type { SimRequestRecord } from '../sim/apiserver/server.js';
import { A_GVRS, startBed, type Bed } from './harness.js';

const TEST_ID = 'x-origin-test-id';
let bed: Bed;
/** Every request an apiserver received, by the test id it carried. */
const seen = new Map<string, SimRequestRecord>();
let nextId = 0;
const freshId = () => `t${++nextId}-${randomBytes(4).toString('hex')}`;

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

/** A request through `core`'s port (default: the bed's), tagged so the apiservers' log can be searched. */
async function send(method: string, path: string, headers: Record<string, string>, body?: string, url = bed.url) {
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
function handshake(
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

const websocketHeaders = (extra: Record<string, string> = {}) => ({
  Upgrade: 'websocket',
  'Sec-WebSocket-Version': '13',
  'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
  'Sec-WebSocket-Protocol': 'v5.channel.k8s.io',
  ...extra,
});
const spdyHeaders = (extra: Record<string, string> = {}) => ({
  Upgrade: 'SPDY/3.1',
  'X-Stream-Protocol-Version': 'v4.channel.k8s.io',
  'Content-Length': '0',
  ...extra,
});

function expectRefusedStatus(r: { status: number; body: string }, message: RegExp): void {
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

const portOf = (url: string) => Number(new URL(url).port);
const configMap = (name: string) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { a: '1' } });

describe('requests a browser marks as from another origin', () => {
  it.each([
    [
      'a JSON POST with a foreign Origin',
      { origin: 'http://evil.example', 'content-type': 'application/json' },
      /^Origin "http:\/\/evil\.example" is not allowed/,
    ],
    [
      'a form-like text/plain POST with a foreign Origin',
      { origin: 'http://evil.example', 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' },
      /^Origin "http:\/\/evil\.example" is not allowed/,
    ],
    ['Origin: null (a sandboxed frame)', { origin: 'null', 'content-type': 'text/plain' }, /^Origin "null"/],
    [
      'Sec-Fetch-Site: cross-site without an Origin',
      { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' },
      /Sec-Fetch-Site: "cross-site"/,
    ],
    [
      'Sec-Fetch-Site: same-site (another port of localhost)',
      { 'sec-fetch-site': 'same-site', 'content-type': 'application/json' },
      /Sec-Fetch-Site: "same-site"/,
    ],
    [
      "a port of localhost other than the port's own",
      { origin: `http://127.0.0.1:${1 + 1}`, 'content-type': 'application/json' },
      /is not allowed/,
    ],
  ])('%s: 403 Status, rejected, never forwarded, nothing created', async (_what, headers, message) => {
    const name = `cm-${freshId()}`;
    const r = await send('POST', '/api/v1/namespaces/default/configmaps', headers, configMap(name));
    expectRefusedStatus(r, message);
    expect(r.contentType).toBe('application/json');
    expect(r.route).toBe('handling=-; answering=-; outcome=rejected');
    expect(r.reached()).toBe(false);
    expect((await send('GET', `/api/v1/namespaces/default/configmaps/${name}`, {})).status).toBe(404);
    expect(bed.core.telemetry.recent(5).some((e) => e.outcome === 'rejected' && e.status === 403 && e.method === 'POST')).toBe(true);
  });

  it("reads of secrets and the port's own endpoints are refused the same way, and recorded as rejected", async () => {
    for (const path of ['/api/v1/namespaces/default/configmaps?watch=true', '/.peerscope/snapshot', '/.peerscope/metrics']) {
      const r = await send('GET', path, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
      expectRefusedStatus(r, /is not allowed/);
      expect(r.route).toMatch(/outcome=rejected$/);
      expect(r.reached()).toBe(false);
      expect(bed.core.telemetry.recent(1)[0]).toMatchObject({ path: path.split('?')[0], outcome: 'rejected', status: 403 });
    }
    // What the port's own endpoints serve is not a routed request: no routing event, least of all a 'rejected' one.
    const before = bed.core.telemetry.lastSeq;
    expect((await send('GET', '/.peerscope/metrics', {})).status).toBe(200);
    expect(bed.core.telemetry.lastSeq).toBe(before);
  });

  it.each([
    ['WebSocket exec', 'GET', '/api/v1/namespaces/default/pods/shell/exec?command=sh&stdin=true', websocketHeaders],
    ['WebSocket attach', 'GET', '/api/v1/namespaces/default/pods/shell/attach?stdin=true', websocketHeaders],
    ['WebSocket port-forward', 'GET', '/api/v1/namespaces/default/pods/shell/portforward?ports=80', websocketHeaders],
    ['WebSocket watch', 'GET', '/api/v1/namespaces/default/configmaps?watch=true', websocketHeaders],
    ['SPDY exec', 'POST', '/api/v1/namespaces/default/pods/shell/exec?command=sh&stdin=true', spdyHeaders],
    ['SPDY port-forward', 'POST', '/api/v1/namespaces/default/pods/shell/portforward', spdyHeaders],
  ])('a %s handshake with a foreign Origin: 403 Status, the apiserver never sees it', async (_what, method, path, headers) => {
    for (const mark of [{ Origin: 'https://evil.example' }, { Origin: 'null' }, { 'Sec-Fetch-Site': 'cross-site' }] as Record<
      string,
      string
    >[]) {
      const r = await handshake(portOf(bed.url), method, path, headers(mark));
      expectRefusedStatus(r, /not allowed/);
      expect(r.head).toMatch(/\r\nx-peerscope-route: handling=-; answering=-; outcome=rejected\r\n/i);
      expect(r.reached()).toBe(false);
    }
  });

  it('the same exec handshake without an Origin switches protocols through the port (a real WebSocket client)', async () => {
    const id = freshId();
    const ws = new WebSocket(`ws://127.0.0.1:${portOf(bed.url)}/api/v1/namespaces/default/pods/shell/exec?command=sh&stdin=true`, {
      protocols: ['v5.channel.k8s.io'],
      headers: { [TEST_ID]: id },
    });
    const opened = await new Promise<string>((resolve) => {
      ws.onopen = () => resolve(`open ${ws.protocol}`);
      ws.onerror = () => resolve('error');
    });
    ws.close();
    expect(opened).toBe('open v5.channel.k8s.io');
    expect(seen.get(id)?.headers.authorization).toMatch(/^Bearer /);
    // And the raw SPDY form, as kubectl sends it.
    const spdy = await handshake(portOf(bed.url), 'POST', '/api/v1/namespaces/default/pods/shell/exec?command=sh', spdyHeaders());
    expect(spdy.status).toBe(101);
    expect(spdy.reached()).toBe(true);
  });

  it('a foreign-origin WebSocket from a real client fails, and a plain client still works afterwards', async () => {
    const id = freshId();
    const ws = new WebSocket(`ws://127.0.0.1:${portOf(bed.url)}/api/v1/namespaces/default/pods/shell/exec?command=sh`, {
      headers: { origin: 'https://evil.example', [TEST_ID]: id },
    });
    const outcome = await new Promise<string>((resolve) => {
      ws.onopen = () => resolve('open');
      ws.onerror = () => resolve('error');
    });
    expect(outcome).toBe('error');
    expect(seen.has(id)).toBe(false);
    const plain = await send('GET', '/api/v1/namespaces', {});
    expect(plain.status).toBe(200);
    expect(plain.reached()).toBe(true);
    const created = await send(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      { 'content-type': 'application/json' },
      configMap(`cm-${freshId()}`),
    );
    expect(created.status).toBe(201);
  });

  it("what browsers mark as the port's own origin, or typed in the address bar, passes", async () => {
    const port = portOf(bed.url);
    for (const headers of [
      { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' },
      { 'sec-fetch-site': 'same-origin' },
      { origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' },
      { origin: `http://localhost:${port}`, host: `localhost:${port}` },
    ] as Record<string, string>[]) {
      const r = await send('GET', '/api/v1/namespaces/default/configmaps', headers);
      expect(r.status, JSON.stringify(headers)).toBe(200);
    }
  });
});

describe('--accept-origins, --reject-paths, --reject-methods', () => {
  let core: Core;
  let url: string;
  const start = async (options: Partial<CoreOptions>) => {
    core = createCore({ servers: bed.core.peers.names().map((n) => bed.core.peers.config(n)!), listen: { port: 0 }, ...options });
    url = (await core.start()).url;
  };
  afterAll(async () => {
    await core?.close(0);
  });

  it('an accepted origin may use the port, matched whole; every other stays refused', async () => {
    await start({ acceptOrigins: ['https://tool\\.example', 'http://localhost:3\\d{3}'] });
    try {
      const ok = await send(
        'POST',
        '/api/v1/namespaces/default/configmaps',
        { origin: 'https://tool.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' },
        configMap(`cm-${freshId()}`),
        url,
      );
      expect(ok.status).toBe(201);
      expect(ok.reached()).toBe(true);
      expect(
        (await send('GET', '/api/v1/namespaces', { origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site' }, undefined, url))
          .status,
      ).toBe(200);
      for (const origin of ['https://tool.example.evil.example', 'https://evil.example', 'http://localhost:30000', 'null']) {
        const r = await send('GET', '/api/v1/namespaces', { origin }, undefined, url);
        expectRefusedStatus(r, /is not allowed/);
        expect(r.reached()).toBe(false);
      }
      const ws = await handshake(
        portOf(url),
        'GET',
        '/api/v1/namespaces/default/pods/shell/exec?command=sh',
        websocketHeaders({ Origin: 'https://tool.example' }),
      );
      expect(ws.status).toBe(101);
    } finally {
      await core.close(0);
    }
  });

  it("kubectl proxy's default --reject-paths and a --reject-methods refuse exec, attach and deletes, before any apiserver", async () => {
    await start({ rejectPaths: ['^/api/.*/pods/.*/exec', '^/api/.*/pods/.*/attach'], rejectMethods: ['^DELETE$'] });
    try {
      for (const [method, path, headers] of [
        ['GET', '/api/v1/namespaces/default/pods/shell/exec?command=sh', websocketHeaders()],
        ['POST', '/api/v1/namespaces/default/pods/shell/ex%65c?command=sh', spdyHeaders()],
        ['GET', '/api/v1/namespaces/default/pods/shell/attach', websocketHeaders()],
      ] as const) {
        const r = await handshake(portOf(url), method, path, headers);
        expectRefusedStatus(r, /--reject-paths/);
        expect(r.reached()).toBe(false);
      }
      const del = await send('DELETE', '/api/v1/namespaces/default/configmaps/nothing', {}, undefined, url);
      expectRefusedStatus(del, /^the method DELETE is refused by the port \(--reject-methods \^DELETE\$\)$/);
      expect(del.route).toBe('handling=-; answering=-; outcome=rejected');
      expect(del.reached()).toBe(false);
      expect(core.telemetry.recent(1)[0]).toMatchObject({ method: 'DELETE', outcome: 'rejected', status: 403 });
      // Port-forward and everything else pass.
      expect(
        (await handshake(portOf(url), 'GET', '/api/v1/namespaces/default/pods/shell/portforward?ports=80', websocketHeaders())).status,
      ).toBe(101);
      expect((await send('GET', '/api/v1/namespaces', {}, undefined, url)).status).toBe(200);
    } finally {
      await core.close(0);
    }
  });

  it('a bad pattern fails at once, naming the option and the pattern', () => {
    expect(() => createCore({ servers: [{ name: 'x', url: 'http://127.0.0.1:1' }], rejectPaths: ['^/api/('] })).toThrow(
      /^reject-paths: "\^\/api\/\(" is not a regular expression/,
    );
  });
});
