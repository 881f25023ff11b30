// Writes a Kubernetes Status as the response: on an HTTP response, or raw on a socket (upgrades).
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import type { Status } from './status.js';

/** Returns the bytes of body written. */
export function writeStatus(res: ServerResponse, status: Status, extraHeaders: Record<string, string> = {}): number {
  const body = Buffer.from(JSON.stringify(status) + '\n');
  if (res.headersSent) {
    res.destroy();
    return 0;
  }
  res.writeHead(status.code, {
    ...extraHeaders,
    'content-type': 'application/json',
    'content-length': String(body.length),
    'cache-control': 'no-cache, private',
  });
  res.end(res.req?.method === 'HEAD' ? undefined : body);
  return body.length;
}

export function writeStatusToSocket(socket: Duplex, status: Status, extraHeaders: Record<string, string> = {}): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(status) + '\n';
  const headers = {
    ...extraHeaders,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  };
  const head = `HTTP/1.1 ${status.code} ${STATUS_CODES[status.code] ?? ''}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
  socket.end(head + body);
}
