// The Node floor with node:http in front: the same undici Pool and the same callback-level relay as
// floor-proxy.ts (and Peerscope), but requests arrive as node:http's IncomingMessage and answers leave
// through its ServerResponse. Against floor-proxy.ts it measures one thing: what node:http's server
// costs a request; against Peerscope, what Peerscope's own passes, routing and telemetry cost. A
// yardstick for profile.ts, not a proxy: no checks, request bodies read whole.
//
// `node http-floor-proxy.mjs UPSTREAM_URL CA_FILE TOKEN`; prints `Starting to serve on 127.0.0.1:PORT`.
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { bearer, HOP, pool, serveYardstick } from './yardstick-upstream.js';

/** Writes one answer through `res`: the chunks of one event-loop turn in one corked write. */
class Answer implements Dispatcher.DispatchHandler {
  private pending: Buffer[] = [];
  private flushQueued: NodeJS.Immediate | undefined;
  private resume: (() => void) | undefined;
  private readonly flush = (end = false): void => {
    if (this.flushQueued) clearImmediate(this.flushQueued);
    this.flushQueued = undefined;
    const { res, pending } = this;
    this.pending = [];
    if (pending.length > 1) res.cork();
    for (const chunk of pending) res.write(chunk);
    if (end) res.end();
    if (pending.length > 1) res.uncork();
  };

  constructor(private readonly res: ServerResponse) {}

  onConnect(): void {}

  onHeaders(status: number, raw: Buffer[], resume: () => void): boolean {
    if (status < 200) return true;
    this.resume = resume;
    const headers: string[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = (raw[i] as Buffer).toString('latin1');
      if (!HOP.has(name.toLowerCase())) headers.push(name, (raw[i + 1] as Buffer).toString('latin1'));
    }
    this.res.writeHead(status, headers);
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.pending.push(chunk);
    this.flushQueued ??= setImmediate(this.flush);
    if (!this.res.writableNeedDrain) return true;
    this.res.once('drain', () => this.resume?.());
    return false;
  }

  onComplete(): void {
    this.flush(true);
  }

  onError(err: Error): void {
    if (this.res.headersSent) return void this.res.destroy();
    this.res.writeHead(502, { 'content-type': 'text/plain' }).end(`upstream: ${err.message}`);
  }
}

function forward(req: IncomingMessage, res: ServerResponse, body: Buffer | undefined): void {
  const headers: OutgoingHttpHeaders = {};
  for (const name in req.headers) if (!HOP.has(name)) headers[name] = req.headers[name];
  headers.authorization ??= bearer;
  const request = { path: req.url ?? '/', method: (req.method ?? 'GET') as Dispatcher.HttpMethod, headers, ...(body ? { body } : {}) };
  pool.dispatch(request as Dispatcher.DispatchOptions, new Answer(res));
}

const server = createServer((req, res) => {
  if ((req.headers['content-length'] ?? '0') === '0') return forward(req, res, undefined);
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => forward(req, res, Buffer.concat(chunks)));
});
server.keepAliveTimeout = 120_000;
serveYardstick(server);
