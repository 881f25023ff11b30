// A bare undici proxy: a reverse proxy with no routing, no discovery and no telemetry — node:http in
// front of one undici Pool, hop-by-hop headers dropped, bodies streamed both ways. What Peerscope
// would cost if routing, discovery and telemetry were free.
//
// `node bare-proxy.mjs UPSTREAM_URL CA_FILE TOKEN`; prints `Starting to serve on 127.0.0.1:PORT`.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { bearer, HOP, pool, serveYardstick } from './yardstick-upstream.js';

function endToEnd(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const v = headers[name];
    if (v !== undefined && !HOP.has(name)) out[name] = v;
  }
  return out;
}

const server = createServer((req, res) => {
  const headers = endToEnd(req.headers);
  headers.authorization ??= bearer;
  const hasBody = req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
  pool.request({ path: req.url ?? '/', method: req.method ?? 'GET', headers, ...(hasBody ? { body: req } : {}) }).then(
    (answer) => {
      res.writeHead(answer.statusCode, endToEnd(answer.headers));
      answer.body.on('error', () => res.destroy());
      answer.body.pipe(res);
      res.once('close', () => {
        if (!res.writableFinished) answer.body.destroy();
      });
    },
    (err: Error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(err.message);
    },
  );
});
server.keepAliveTimeout = 120_000;
serveYardstick(server);
