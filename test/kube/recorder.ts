// A recording TLS hop in front of one real apiserver: it notes each request's method, path and
// headers as they arrived on the wire, then forwards the request to the server (as the admin, where
// the request brings no Authorization) and streams the answer back. It lets a test see what
// Peerscope really sent (x-kubernetes-peer-proxied) without trusting Peerscope's own account of it.
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import type { ControlPlane } from './control-plane.js';

export interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

export interface Recorder {
  readonly url: string;
  readonly seen: Recorded[];
  close(): Promise<void>;
}

const HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);

export async function startRecorder(cp: ControlPlane, host: string): Promise<Recorder> {
  const target = cp.server(host).url;
  const agent = new Agent({ connect: { ca: cp.pki.caPem } });
  const tls = await cp.pki.issueServing(['127.0.0.1']);
  const seen: Recorded[] = [];
  const server: Server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    seen.push({ method: req.method ?? '', path: req.url ?? '', headers: { ...req.headers } });
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP.has(k))) as Record<string, string>;
    headers.authorization ??= `Bearer ${cp.pki.adminToken}`;
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    request(`${target}${req.url ?? '/'}`, { method: req.method as 'GET', headers, dispatcher: agent, ...(hasBody ? { body: req } : {}) })
      .then((up) => {
        res.writeHead(up.statusCode, Object.fromEntries(Object.entries(up.headers).filter(([k]) => !HOP.has(k))) as Record<string, string>);
        up.body.pipe(res);
      })
      .catch((err: Error) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`recorder: ${err.message}`);
      });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await agent.close();
    },
  };
}
