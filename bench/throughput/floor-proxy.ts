// The floor for any Node proxy on this machine: no node:http on the client side at all — a plain
// TCP server that cuts requests out of the byte stream itself — in front of one undici Pool, the
// answer relayed the way Peerscope relays it (dispatch handler, the chunks of one event-loop turn in
// one corked write). It is a yardstick, not a proxy to run: it speaks just enough HTTP/1.1 for the
// bench (Content-Length bodies, one request at a time per connection, no upgrades, none of the checks
// a port exposed to real clients must make). Where Peerscope is measured against nginx or a CPU
// budget, this says how much of the gap any Node proxy would keep.
//
// `node floor-proxy.mjs UPSTREAM_URL CA_FILE TOKEN`; prints `Starting to serve on 127.0.0.1:PORT`.
import { STATUS_CODES } from 'node:http';
import { createServer, type Socket } from 'node:net';
import type { Dispatcher } from 'undici';
import { bearer, HOP, pool, serveYardstick } from './yardstick-upstream.js';

const HEAD_END = Buffer.from('\r\n\r\n');
const MAX_HEAD = 64 * 1024;

/** Relays one answer to the client's socket; calls `done` once the answer has been written. */
class Answer implements Dispatcher.DispatchHandler {
  private head = '';
  private chunked = false;
  private written = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private flushQueued: NodeJS.Immediate | undefined;
  private waitingForDrain = false;
  private resume: (() => void) | undefined;
  private readonly flush = (end = false): void => {
    if (this.flushQueued) clearImmediate(this.flushQueued);
    this.flushQueued = undefined;
    const { socket } = this;
    socket.cork();
    if (!this.written) socket.write(this.head, 'latin1');
    this.written = true;
    for (const chunk of this.pending) {
      if (this.chunked) socket.write(`${chunk.length.toString(16)}\r\n`, 'latin1');
      socket.write(chunk);
      if (this.chunked) socket.write('\r\n', 'latin1');
    }
    if (end && this.chunked) socket.write('0\r\n\r\n', 'latin1');
    socket.uncork();
    this.pending = [];
    this.pendingBytes = 0;
  };

  constructor(
    private readonly socket: Socket,
    private readonly done: () => void,
  ) {}

  onConnect(): void {}

  onHeaders(status: number, raw: Buffer[], resume: () => void): boolean {
    if (status < 200) return true;
    this.resume = resume;
    let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n`;
    let length = false;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = (raw[i] as Buffer).toString('latin1');
      const lower = name.toLowerCase();
      if (lower === 'content-length') length = true;
      if (!HOP.has(lower)) head += `${name}: ${(raw[i + 1] as Buffer).toString('latin1')}\r\n`;
    }
    this.chunked = !length;
    this.head = `${head}${this.chunked ? 'Transfer-Encoding: chunked\r\n' : ''}\r\n`;
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (chunk.length === 0) return true; // framed as a chunk, it would end the answer
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= 64 * 1024) this.flush();
    else this.flushQueued ??= setImmediate(this.flush);
    if (!this.socket.writableNeedDrain) return true;
    if (!this.waitingForDrain) {
      this.waitingForDrain = true;
      this.socket.once('drain', () => {
        this.waitingForDrain = false;
        this.resume?.();
      });
    }
    return false;
  }

  onComplete(): void {
    this.flush(true);
    this.done();
  }

  onError(err: Error): void {
    if (this.written) return void this.socket.destroy();
    const body = `upstream: ${err.message}`;
    this.socket.write(`HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    this.done();
  }
}

/** One client connection: requests are cut from the stream and answered one at a time, in order. */
function serve(socket: Socket): void {
  let buffered: Buffer = Buffer.alloc(0);
  let busy = false;
  const next = (): void => {
    if (busy) return;
    const end = buffered.indexOf(HEAD_END);
    if (end < 0) {
      if (buffered.length > MAX_HEAD) socket.destroy();
      return;
    }
    const lines = buffered.toString('latin1', 0, end).split('\r\n');
    const [method, path] = (lines[0] as string).split(' ') as [string, string];
    const headers: Record<string, string> = {};
    let length = 0;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] as string;
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') length = Number(value);
      if (name === 'transfer-encoding')
        return void socket.end('HTTP/1.1 501 Not Implemented\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      if (!HOP.has(name)) headers[name] = value;
    }
    if (buffered.length < end + 4 + length) return; // the body is still coming
    const body = length > 0 ? buffered.subarray(end + 4, end + 4 + length) : undefined;
    buffered = buffered.subarray(end + 4 + length);
    headers.authorization ??= bearer;
    busy = true;
    pool.dispatch(
      { path, method: method as Dispatcher.HttpMethod, headers, ...(body ? { body } : {}) },
      new Answer(socket, () => {
        busy = false;
        next();
      }),
    );
  };
  socket.on('data', (data: Buffer) => {
    buffered = buffered.length === 0 ? data : Buffer.concat([buffered, data]);
    next();
  });
  socket.on('error', () => socket.destroy());
}

const server = createServer({ noDelay: true }, serve);
serveYardstick(server);
