// HTTP headers as such: a header's value as one string, and the hop-by-hop headers (RFC 9110 §7.6.1),
// which belong to one connection and are never forwarded, in either direction: the fixed list below
// plus every name the message's own Connection header lists.
/** A header as Node hands it over (repeats as an array), as one value: repeats joined with ", ". */
export function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

// Connection values seen recently ("keep-alive", "close", "Upgrade", …) and their sets: most messages
// carry one of a handful, and building the set is the costly part. Bounded: cleared when full.
const recent = new Map<string, ReadonlySet<string>>();
const RECENT_MAX = 64;

/** The hop-by-hop set of a message: the fixed list plus every name its Connection header lists. */
export function hopByHopNames(connection: string | string[] | undefined): ReadonlySet<string> {
  if (!connection) return HOP_BY_HOP_HEADERS;
  const text = Array.isArray(connection) ? connection.join(',') : connection;
  const known = recent.get(text);
  if (known) return known;
  const listed = text
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t && !HOP_BY_HOP_HEADERS.has(t));
  const set = listed.length ? new Set([...HOP_BY_HOP_HEADERS, ...listed]) : HOP_BY_HOP_HEADERS;
  if (recent.size >= RECENT_MAX) recent.clear();
  recent.set(text, set);
  return set;
}

export function isHopByHop(name: string, set: ReadonlySet<string> = HOP_BY_HOP_HEADERS): boolean {
  return set.has(name.toLowerCase());
}

type HeaderObject = Record<string, string | string[] | number | undefined>;

/** A copy of a header object (Node's lower-case form) without its hop-by-hop headers. */
export function withoutHopByHop<T extends HeaderObject>(headers: T): Partial<T> {
  const connection = headerNamed(headers, 'connection');
  const hop = hopByHopNames(connection);
  const out: Partial<T> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !hop.has(name.toLowerCase())) (out as HeaderObject)[name] = value;
  }
  return out;
}

/** A raw header array ([name, value, name, value, …], any case, as Node's rawHeaders) without its hop-by-hop pairs. */
export function withoutHopByHopRaw(raw: readonly string[]): string[] {
  const connection: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]?.toLowerCase() === 'connection') connection.push(raw[i + 1] ?? '');
  const hop = hopByHopNames(connection);
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (!hop.has(name.toLowerCase())) out.push(name, raw[i + 1] ?? '');
  }
  return out;
}

function headerNamed(headers: HeaderObject, lowerName: string): string | string[] | undefined {
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== lowerName || value === undefined) continue;
    return typeof value === 'number' ? String(value) : value;
  }
  return undefined;
}
