// The local port's listener: the node:http server and the connection-level hooks around the request
// handler. Answers of pipelined requests leave in order (connection-answers.ts); a malformed request
// line or oversized headers get a Status before any handler runs; CONNECT is refused; an upgrade is
// handed to the handler's onUpgrade. Every connection is tracked so shutdown can end them all.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  answerAndClose,
  closeLingering,
  refuseConnect,
  refuseExpectation,
  ResponseQueue,
  statusForParseError,
} from './connection-answers.js';
import type { Handler } from './handler.js';
import { MAX_PENDING_BYTES } from '../upstream/relay.js';

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
  /** e.g. http://127.0.0.1:8001 */
  readonly url: string;
}

export interface PortListener {
  readonly address: ListenAddress;
  /**
   * Stops accepting, ends idle connections as their last answer leaves and tunnels at once, and
   * every connection after `graceMs`. `beforeSweep` runs once the server stops accepting (the core
   * aborts watches there).
   */
  close(graceMs: number, beforeSweep: () => void): Promise<void>;
}

export async function listen(handler: Handler, at: { host: string; port: number }): Promise<PortListener> {
  // Every connection of the port, and those handed to an upgrade: Node's server forgets both an
  // upgraded socket and one closing lingering, so closeAllConnections() cannot reach them.
  const sockets = new Set<Socket>();
  const tunnels = new WeakSet<Duplex>();
  const server = createPortServer(handler, sockets, tunnels);
  server.listen(at.port, at.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    address: { host: addr.address, port: addr.port, url: `http://${shownHost}:${addr.port}` },
    async close(graceMs, beforeSweep) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      beforeSweep();
      // Connections go idle as their last response ends: close them as they do, not at keep-alive
      // timeout. Tunnels (exec, attach, port-forward) are long-running like watches and end now; a
      // connection closing lingering ends once its answers have left (the client has them).
      const sweep = () => {
        server.closeIdleConnections();
        for (const socket of sockets) if (tunnels.has(socket) || (socket.writableEnded && socket.writableFinished)) socket.destroy();
      };
      const sweeping = setInterval(sweep, 25);
      sweep();
      const timer = setTimeout(() => {
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      }, graceMs).unref();
      await Promise.race([closed, delay(graceMs + 1_000)]);
      clearTimeout(timer);
      clearInterval(sweeping);
    },
  };
}

/**
 * How much a client's connection holds before the relay pauses the upstream (and how much of a request
 * body is read ahead): twice the relay's largest write (upstream/relay.ts). node:http corks the
 * connection for the rest of a turn, so a write larger than this reports the connection full even when
 * the kernel takes it all at once: with Node's default of 64 KiB and 64 KiB writes, the upstream read
 * paused and resumed ~980 times per 100,000-event watch (now 2–7), ~10 ms of the port's CPU.
 */
export const CLIENT_BUFFER_BYTES = 2 * MAX_PENDING_BYTES;

function createPortServer(handler: Handler, sockets: Set<Socket>, tunnels: WeakSet<Duplex>): Server {
  // Connection-level answers keep pipelined responses in order (connection-answers.ts).
  const queue = new ResponseQueue();
  const server = createServer({ requireHostHeader: false, maxHeaderSize: 64 * 1024, highWaterMark: CLIENT_BUFFER_BYTES }, (req, res) => {
    queue.track(req, res);
    void handler.onRequest(req, res);
  });
  server.on('upgrade', (req, socket, head) => {
    tunnels.add(socket);
    queue.takeOver(socket, () => void handler.onUpgrade(req, socket, head));
  });
  server.on('connection', (socket: Socket) => {
    closeLingering(socket);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('connect', (req, socket) => refuseConnect(queue, req, socket));
  server.on('checkContinue', (req, res) => {
    queue.track(req, res);
    queue.continueWhenFirst(req, res);
    void handler.onRequest(req, res);
  });
  server.on('checkExpectation', (req, res) => {
    queue.track(req, res);
    refuseExpectation(req, res);
  });
  // A malformed request line or oversized headers never reach the handler: answer a Status.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => answerAndClose(queue, socket, statusForParseError(err)));
  return server;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
