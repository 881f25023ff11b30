// Answers the port writes on a connection outside any request handler — a request Node's parser
// refused (400, 431, 408), a CONNECT (405), an Expect it cannot meet (417) — and the hand-over of
// a connection to an upgrade. Two rules keep a client in step with the port:
// - in order: responses to requests pipelined before the bad one are still under way; they go out
//   first, and only then the Status (or the tunnel), never in their place;
// - a lingering close: after the Status the port ends its side and keeps reading (and dropping) what
//   the client is still sending for a moment, so the client reads the answer instead of a reset
//   (closing with unread bytes makes the kernel send RST, which discards the answer in flight).
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { failure, type Status } from '../util/status.js';
import { writeStatus } from '../util/write-status.js';
import { routeHeader, ROUTE_HEADER } from './route-header.js';

/**
 * How long a closing connection may stay quiet, once the port's answers have left, before it is cut
 * (nginx's lingering_timeout): a client on a busy machine may pause between the writes of one request.
 */
export const LINGER_MS = 5_000;
/** The most a closing connection is kept, for a client that never reads its answer. */
export const LINGER_MAX_MS = 30_000;

const REJECTED = { [ROUTE_HEADER]: routeHeader(null, null, 'rejected') };

/** Responses under way per connection, so a connection-level answer can wait its turn. */
export class ResponseQueue {
  private readonly open = new WeakMap<Duplex, Set<{ req: IncomingMessage; res: ServerResponse }>>();
  private readonly waiters = new WeakMap<Duplex, (() => void)[]>();

  /** Call for every request: counts its response until the response is done. */
  track(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    let entries = this.open.get(socket);
    if (!entries) {
      this.open.set(socket, (entries = new Set()));
      const mine = entries;
      // Node tells only the response being written that its client left; a response queued behind
      // it (pipelining) never hears, so its upstream request would wait for ever (a paused body
      // held its connection, and the port's shutdown, for good). Tell them all.
      socket.once('close', () =>
        setImmediate(() => {
          for (const e of mine) {
            if (e.res.writableFinished) continue;
            e.res.destroy();
            e.res.emit('close');
          }
        }),
      );
    }
    const entry = { req, res };
    entries.add(entry);
    res.once('close', () => {
      entries.delete(entry);
      this.wake(socket);
    });
  }

  /**
   * Runs `fn` once every response under way on `socket` is done (at once when none is). A request
   * whose body never finished arriving (the one Node's parser just failed on) is not waited for,
   * unless its response has started: it cannot complete, and the Status that follows answers it.
   */
  afterResponses(socket: Duplex, fn: () => void): void {
    if (this.busy(socket)) {
      const list = this.waiters.get(socket) ?? [];
      this.waiters.set(socket, list);
      list.push(fn);
    } else fn();
  }

  /**
   * Expect: 100-continue. Node writes the interim 100 itself, at once; for a response queued behind
   * earlier ones on a pipelined connection it then lands inside this response (Node puts the
   * status line and headers ahead of it when the body is a Buffer). Here the 100 goes out when
   * this response is first in line, and not at all once its final answer has started.
   */
  continueWhenFirst(req: IncomingMessage, res: ServerResponse): void {
    const entries = this.open.get(req.socket);
    const earlier = [...(entries ?? [])].filter((e) => e.res !== res);
    if (earlier.length === 0) return void res.writeContinue();
    let left = earlier.length;
    for (const e of earlier) {
      e.res.once('close', () => {
        if (--left === 0 && !res.headersSent && !res.writableEnded && !res.destroyed) res.writeContinue();
      });
    }
  }

  /**
   * Node hands a connection to an upgrade or CONNECT at once and stops serving it: it removes its
   * 'error' and 'drain' listeners, so a response still being written would stall (no drain) and a
   * client reset would crash the process (an 'error' with no listener). Until the earlier responses
   * are done, errors are absorbed and drain is passed on to the response being written.
   */
  takeOver(socket: Duplex, fn: () => void): void {
    socket.on('error', () => undefined);
    if (!this.busy(socket)) return fn();
    const current = socket as Duplex & { _httpMessage?: { emit(event: 'drain'): boolean } | null };
    const onDrain = () => void current._httpMessage?.emit('drain');
    socket.on('drain', onDrain);
    this.afterResponses(socket, () => {
      socket.off('drain', onDrain);
      fn();
    });
  }

  private busy(socket: Duplex): boolean {
    for (const e of this.open.get(socket) ?? []) if (e.req.complete || e.res.headersSent) return true;
    return false;
  }

  private wake(socket: Duplex): void {
    if (this.busy(socket)) return;
    for (const fn of this.waiters.get(socket)?.splice(0) ?? []) fn();
  }
}

/** The Status for what Node's parser refused. */
export function statusForParseError(err: NodeJS.ErrnoException): Status {
  const detail = `malformed request: ${err.code ?? err.message}`;
  if (err.code === 'HPE_HEADER_OVERFLOW') return failure(431, 'BadRequest', detail);
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'HPE_HEADER_TIMEOUT')
    return failure(408, 'Timeout', `the request did not arrive in time (${err.code})`);
  return failure(400, 'BadRequest', detail);
}

const answered = new WeakSet<Duplex>();

/**
 * Writes `status` as the connection's last response once earlier responses are done, then closes
 * with a linger. Called again for the same connection (Node reports every later chunk of a broken
 * request as another error), it does nothing.
 */
export function answerAndClose(queue: ResponseQueue, socket: Duplex, status: Status): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  socket.on('error', () => undefined);
  if (!socket.writable) {
    // Already ending (a lingering close after an answer that closes the connection): that close
    // delivers the answers; destroying now would reset them away.
    if (!socket.writableEnded) socket.destroy();
    return;
  }
  // Keep reading while waiting: unread bytes at close would reset the connection.
  socket.on('data', () => undefined);
  socket.resume();
  queue.takeOver(socket, () => {
    if (!socket.writable) {
      if (!socket.writableEnded) socket.destroy();
      return;
    }
    const body = JSON.stringify(status) + '\n';
    const head = [
      `HTTP/1.1 ${status.code} ${STATUS_CODES[status.code] ?? ''}`,
      'content-type: application/json',
      `content-length: ${Buffer.byteLength(body)}`,
      'cache-control: no-cache, private',
      'connection: close',
      `${ROUTE_HEADER}: ${REJECTED[ROUTE_HEADER]}`,
    ].join('\r\n');
    socket.end(`${head}\r\n\r\n${body}`);
    linger(socket);
  });
}

/**
 * Node's server ends a connection after a response that closes it (Connection: close, HTTP/1.0,
 * an unmet 100-continue) with destroySoon(): the descriptor is closed as soon as the response is
 * written, and bytes the client already sent behind it (a body, pipelined requests) make the kernel
 * send a reset, which can destroy responses the client has not read yet. Here the port stops
 * parsing, sends FIN after the last response, and reads and drops what still comes until the
 * client closes or LINGER_MS pass (RFC 9112 §9.6).
 */
export function closeLingering(socket: Socket): void {
  socket.destroySoon = () => {
    if (socket.destroyed) return;
    // Nothing after the last response is parsed, let alone answered or forwarded.
    socket.removeAllListeners('data');
    socket.on('error', () => undefined);
    socket.end();
    linger(socket);
  };
}

/**
 * After the port's FIN: read and drop until the client closes, or until it has been quiet for
 * LINGER_MS once every byte of the port's answers has left the process — a slow reader of a large
 * answer (a 1.3 MB metrics page behind a refused request) is not cut while Node still holds part of
 * it, and a client still sending is not reset (closing with unread bytes makes the kernel send RST,
 * which discards what the client has not read yet). LINGER_MAX_MS bounds a client that never reads.
 */
function linger(socket: Duplex): void {
  let quiet: NodeJS.Timeout | undefined;
  const cap = setTimeout(() => socket.destroy(), LINGER_MAX_MS);
  cap.unref();
  const flushed = () => socket.writableFinished || socket.destroyed;
  const armQuiet = () => {
    clearTimeout(quiet);
    quiet = setTimeout(() => socket.destroy(), LINGER_MS);
    quiet.unref();
  };
  socket.on('data', () => {
    if (flushed()) armQuiet();
  });
  socket.resume();
  socket.once('close', () => {
    clearTimeout(cap);
    clearTimeout(quiet);
  });
  const whenFlushed = (fn: () => void): void => {
    if (flushed()) fn();
    else socket.once('finish', fn);
  };
  // The client read what it wanted and closed its side: done, once the answers have left.
  if (socket.readableEnded) {
    whenFlushed(() => socket.destroy());
    return;
  }
  socket.once('end', () => whenFlushed(() => socket.destroy()));
  whenFlushed(armQuiet);
}

/** CONNECT asks a proxy for a raw tunnel to host:port; this port only carries Kubernetes API requests. */
export function refuseConnect(queue: ResponseQueue, req: IncomingMessage, socket: Duplex): void {
  answerAndClose(
    queue,
    socket,
    failure(
      405,
      'MethodNotAllowed',
      `the method CONNECT (to ${JSON.stringify((req.url ?? '').slice(0, 200))}) is not supported: the port proxies Kubernetes API requests, not tunnels`,
    ),
  );
}

/** An Expect other than 100-continue (which Node answers itself): 417, as Go's server answers. */
export function refuseExpectation(req: IncomingMessage, res: ServerResponse): void {
  writeStatus(
    res,
    failure(
      417,
      '',
      `the expectation ${JSON.stringify(String(req.headers.expect ?? '').slice(0, 200))} cannot be met; only 100-continue is supported`,
    ),
    REJECTED,
  );
}
