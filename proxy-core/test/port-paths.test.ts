// Request heads the port must read as kube-apiserver does, found by the port fuzz: a path is routed
// by its percent-decoded form (Go's URL.Path) and forwarded as sent; an invalid escape, a second
// Host line and a transfer coding other than chunked are refused with a Status and forwarded nowhere.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A_GVRS, B_GVRS, startBed, type Bed } from './harness.js';

describe('paths and heads read as kube-apiserver reads them', () => {
  let bed: Bed;
  const seen: { server: string; url: string }[] = [];
  /** Requests that reached a server for `prefix` (the core's own probes and discovery reads aside). */
  const reached = (prefix: string) => seen.filter((s) => s.url.startsWith(prefix)).length;
  beforeAll(async () => {
    bed = await startBed({ A: A_GVRS, B: B_GVRS });
    bed.sim.onRequest((server, req) => seen.push({ server, url: req.url }));
    bed.core.setPolicy({ kind: 'pin', server: 'A' });
  });
  afterAll(() => bed?.close());

  async function raw(text: string): Promise<string> {
    const socket = connect(Number(new URL(bed.url).port), '127.0.0.1');
    socket.write(text);
    let out = '';
    socket.on('data', (c: Buffer) => (out += c.toString('latin1')));
    await new Promise<void>((resolve) => {
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
      setTimeout(() => socket.destroy(), 1_000);
    });
    return out;
  }

  it('routes a percent-encoded GVR like the plain one (no false 404), and forwards the path as sent', async () => {
    const r = await bed.get('/apis/resource.k8s.io/v1/device%63lasses');
    expect(r.route()).toBe('handling=A; answering=B; outcome=rerouted');
    expect(r.status).toBe(200);
    expect(seen.at(-1)).toEqual({ server: 'B', url: '/apis/resource.k8s.io/v1/device%63lasses' });
    // %2F is a segment boundary once decoded, as in Go: this is apps/v1 deployments.
    expect((await bed.get('/apis/apps%2Fv1/deployments')).route()).toBe('handling=A; answering=A; outcome=local');
  });

  it('refuses an invalid percent-encoding with a 400 Status and forwards nothing', async () => {
    for (const path of ['/api/v1/namespaces/d/pods/%zz', '/api/v1/pods%', '/apis/%4']) {
      const r = await bed.get(path);
      expect(r.status, path).toBe(400);
      expect(r.json()).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
    }
    expect(reached('/api/v1/namespaces/d/pods') + reached('/api/v1/pods') + reached('/apis/%4')).toBe(0);
  });

  it('refuses a second Host line with a 400 Status, whichever comes first', async () => {
    const port = new URL(bed.url).port;
    for (const hosts of [
      ['localhost', 'evil.example'],
      [`localhost:${port}`, `localhost:${port}`],
    ]) {
      const out = await raw(`GET /api/v1/pods HTTP/1.1\r\n${hosts.map((h) => `Host: ${h}\r\n`).join('')}Connection: close\r\n\r\n`);
      expect(out).toMatch(/^HTTP\/1\.1 400 /);
      expect(out).toContain('"message":"the request has 2 Host headers; exactly one is allowed"');
    }
    expect(reached('/api/v1/pods')).toBe(0);
  });

  it('refuses a transfer coding other than chunked with a 501 Status and closes the connection', async () => {
    const out = await raw(
      `POST /api/v1/namespaces/d/configmaps HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\nGET /version HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    );
    expect(out).toMatch(/^HTTP\/1\.1 501 /);
    expect(out.toLowerCase()).toContain('connection: close');
    expect(out.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(reached('/api/v1/namespaces/d/configmaps')).toBe(0);
  });
});
