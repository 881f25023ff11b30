// The headers a forward sends and relays: the client's end-to-end request headers with the server's
// credential and the port's additions; the upstream's response headers without hop-by-hop ones; the
// upstream's Warning values (for the upgrade-impact report).
import type { IncomingMessage } from 'node:http';
import { hopByHopNames } from '../util/hop-by-hop.js';

/** Request headers that are the proxy's own business, or that undici sets itself and refuses. */
const NOT_FORWARDED = new Set(['host', 'expect']);

/** The outgoing request headers: end-to-end headers of the client, the server's token, the additions. */
export function outgoingHeaders(req: IncomingMessage, add: Record<string, string> | undefined, bearer: string | undefined): Record<string, string | string[]> {
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

/**
 * The response header list relayed to the client ([name, value, name, value, …] as the upstream sent
 * them, repeats and order kept) without hop-by-hop headers, plus `extra`.
 */
export function relayedRawHeaders(raw: readonly (Buffer | string)[], extra: Record<string, string> | undefined): string[] {
  const names: string[] = [];
  const lower: string[] = [];
  const values: string[] = [];
  let connection: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = latin1(raw[i] as Buffer | string);
    const value = latin1(raw[i + 1] as Buffer | string);
    const l = name.toLowerCase();
    if (l === 'connection') connection = connection === undefined ? value : `${connection},${value}`;
    names.push(name);
    lower.push(l);
    values.push(value);
  }
  const hop = hopByHopNames(connection);
  const out: string[] = [];
  for (let i = 0; i < names.length; i++) if (!hop.has(lower[i] as string)) out.push(names[i] as string, values[i] as string);
  if (extra) for (const name in extra) out.push(name, extra[name] as string);
  return out;
}

/**
 * The values of `Warning` headers in a raw header list, or undefined (the common case). A length check
 * first: most names are not 7 bytes long, and no string is made for them.
 */
export function warningValues(raw: readonly (Buffer | string)[]): string[] | undefined {
  let out: string[] | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as Buffer | string;
    if (name.length !== 7 || latin1(name).toLowerCase() !== 'warning') continue;
    (out ??= []).push(latin1(raw[i + 1] as Buffer | string));
  }
  return out;
}

function latin1(v: Buffer | string): string {
  return typeof v === 'string' ? v : v.toString('latin1');
}
