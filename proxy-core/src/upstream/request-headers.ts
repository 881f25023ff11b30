// What of the client's request goes upstream: its end-to-end headers (plus the server's token and the
// port's additions) and whether it has a body. Shared by forward() and tunnel(), which send the same.
import type { IncomingMessage } from 'node:http';
import { hopByHopNames } from '../util/hop-by-hop.js';

/** Request headers that are the proxy's own business, or that undici sets itself and refuses. */
const NOT_FORWARDED = new Set(['host', 'expect']);

/** The outgoing request headers: end-to-end headers of the client, the server's token, the additions. */
export function outgoingHeaders(
  req: IncomingMessage,
  add: Record<string, string> | undefined,
  bearer: string | undefined,
): Record<string, string | string[]> {
  const hop = hopByHopNames(req.headers.connection);
  const out: Record<string, string | string[]> = {};
  const headers = req.headers;
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || hop.has(name) || NOT_FORWARDED.has(name)) continue;
    out[name] = value;
  }
  // As kubectl proxy does: the core's credential only for a client that brought none of its own.
  if (bearer && out.authorization === undefined) out.authorization = `Bearer ${bearer}`;
  if (add) for (const name in add) out[name] = add[name] as string;
  return out;
}

export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
