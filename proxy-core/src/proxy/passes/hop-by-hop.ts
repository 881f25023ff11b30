// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are never forwarded.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** The hop-by-hop set of a message: the fixed list plus every name its Connection header lists. */
export function hopByHopNames(connection: string | string[] | undefined): ReadonlySet<string> {
  if (!connection) return HOP_BY_HOP;
  const extra = (Array.isArray(connection) ? connection.join(',') : connection).split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);
  return extra.length ? new Set([...HOP_BY_HOP, ...extra]) : HOP_BY_HOP;
}

export function isHopByHop(name: string, set: ReadonlySet<string> = HOP_BY_HOP): boolean {
  return set.has(name.toLowerCase());
}
