// Issue 20: a web page in the operator's browser cannot use the local port. The port adds the
// operator's credential (here the simulated cluster's bearer token, over HTTPS) to every request that
// brings none, so every request a browser marks as from another origin — plain, form-like, WebSocket
// or SPDY upgrade, or to the port's own endpoints — gets a 403 Status and reaches no apiserver, while
// clients that send no such mark (kubectl, curl, client-go) work as before. Real sockets throughout.
import { WebSocket } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  bed,
  configMap,
  expectRefusedStatus,
  freshId,
  handshake,
  portOf,
  seen,
  send,
  spdyHeaders,
  TEST_ID,
  useOriginBed,
  websocketHeaders,
} from './origin-bed.js';

useOriginBed();

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
      expect(r.route).toMatch(/outcome=rejected(;|$)/);
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
