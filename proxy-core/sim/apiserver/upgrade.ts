// Connection upgrades for pods/exec, pods/attach and pods/portforward (WebSocket or SPDY/3.1):
// 101 Switching Protocols echoing the asked protocol, then every byte is sent back — a stand-in
// shell that proves a tunnel carries data both ways.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { failure, statusBody, type Status } from '../../engine/util/status.js';
import { isAuthenticated, unauthorized } from './auth.js';
import type { ApiContext } from './context.js';
import { ApiError, internalError } from './errors.js';
import { resolveResourceRequest } from './request-info.js';

const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const UPGRADABLE = new Set(['exec', 'attach', 'portforward']);

function firstOffered(value: string | string[] | undefined): string | undefined {
  const joined = Array.isArray(value) ? value.join(',') : value;
  return joined
    ?.split(',')
    .map((s) => s.trim())
    .find((s) => s.length > 0);
}

function writeRawStatus(socket: Duplex, serverName: string, status: Status): void {
  const body = statusBody(status);
  socket.end(
    `HTTP/1.1 ${status.code} ${STATUS_CODES[status.code] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Simulated-Apiserver: ${serverName}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function handleUpgrade(ctx: ApiContext, token: string | undefined, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  socket.on('error', () => socket.destroy());
  try {
    const url = new URL(req.url ?? '/', 'http://sim');
    if (!isAuthenticated(req, url.pathname, token)) return writeRawStatus(socket, ctx.serverName, unauthorized());
    const segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const rr = resolveResourceRequest(ctx.served, segments);
    if (!rr || rr.subresource === undefined || !UPGRADABLE.has(rr.subresource)) {
      return writeRawStatus(socket, ctx.serverName, failure(400, 'BadRequest', 'this resource does not accept connection upgrades'));
    }
    const pod = ctx.store.get({ group: rr.group, resource: rr.resource }, rr.namespace ?? '', rr.name ?? '');
    if (!pod) {
      const what = rr.group ? `${rr.resource}.${rr.group}` : rr.resource;
      return writeRawStatus(
        socket,
        ctx.serverName,
        failure(404, 'NotFound', `${what} "${rr.name}" not found`, { name: rr.name ?? '', group: rr.group, kind: rr.resource }),
      );
    }
    const upgrade = String(req.headers.upgrade ?? '');
    const lines = [
      'HTTP/1.1 101 Switching Protocols',
      `Upgrade: ${upgrade}`,
      'Connection: Upgrade',
      `X-Simulated-Apiserver: ${ctx.serverName}`,
    ];
    const key = req.headers['sec-websocket-key'];
    if (typeof key === 'string')
      lines.push(
        `Sec-WebSocket-Accept: ${createHash('sha1')
          .update(key + WEBSOCKET_GUID)
          .digest('base64')}`,
      );
    const wsProtocol = firstOffered(req.headers['sec-websocket-protocol']);
    if (wsProtocol) lines.push(`Sec-WebSocket-Protocol: ${wsProtocol}`);
    const streamProtocol = firstOffered(req.headers['x-stream-protocol-version']);
    if (streamProtocol) lines.push(`X-Stream-Protocol-Version: ${streamProtocol}`);
    socket.write(lines.join('\r\n') + '\r\n\r\n');
    if (head.length > 0) socket.write(head);
    socket.pipe(socket);
  } catch (err) {
    writeRawStatus(socket, ctx.serverName, err instanceof ApiError ? err.status : internalError(err));
  }
}
