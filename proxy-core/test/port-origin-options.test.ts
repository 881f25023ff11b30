// The port's options that widen or narrow what it accepts: --accept-origins lets a named origin in,
// --reject-paths and --reject-methods refuse requests before any apiserver. Real sockets throughout.
import { afterAll, describe, expect, it } from 'vitest';
import { createCore, type Core, type CoreOptions } from '../engine/core.js';
import {
  bed,
  configMap,
  expectRefusedStatus,
  freshId,
  handshake,
  portOf,
  send,
  spdyHeaders,
  useOriginBed,
  websocketHeaders,
} from './origin-bed.js';

useOriginBed();

describe('--accept-origins, --reject-paths, --reject-methods', () => {
  let core: Core;
  let url: string;
  const start = async (options: Partial<CoreOptions>) => {
    core = createCore({ servers: bed.core.servers.names().map((n) => bed.core.servers.config(n)!), listen: { port: 0 }, ...options });
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
