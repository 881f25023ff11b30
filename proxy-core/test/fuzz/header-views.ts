// Headers as each side sees them: the request's headers as Node hands them to the port, what an
// upstream recorded, and which names count as hop-by-hop (the fixed list plus those named in
// Connection). The oracle compares these views to judge what the port forwarded.
import type { UpstreamRecord } from './upstream.js';

const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];
export const IDENTITY = /^x-remote-(user|uid|group|extra-.*)$/i;
/** Header names Node keeps only the first of. */
const FIRST_ONLY = new Set(['authorization', 'content-type', 'content-length', 'user-agent', 'host']);

function trimOws(v: string): string {
  return v.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** The request's headers as Node hands them to the port: lower-case names, repeats joined. */
export function nodeView(headers: readonly (readonly [string, string])[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [n, v] of headers) {
    const name = n.toLowerCase();
    const value = trimOws(v);
    const prev = out.get(name);
    if (prev === undefined) out.set(name, value);
    else if (!FIRST_ONLY.has(name)) out.set(name, `${prev}, ${value}`);
  }
  return out;
}

export function recordView(rec: UpstreamRecord): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < rec.rawHeaders.length; i += 2) {
    const name = (rec.rawHeaders[i] as string).toLowerCase();
    const value = rec.rawHeaders[i + 1] as string;
    const prev = out.get(name);
    out.set(name, prev === undefined ? value : `${prev}, ${value}`);
  }
  return out;
}

export function hopSet(view: Map<string, string>): Set<string> {
  const set = new Set(HOP_BY_HOP);
  for (const t of (view.get('connection') ?? '').split(',')) if (t.trim()) set.add(t.trim().toLowerCase());
  return set;
}
