// Reading the upstream's raw response header list ([name, value, name, value, …] as undici hands it
// over): what is relayed to the client, and the Warning values the port records. Kept apart from the
// relay so the byte-level header work can be read and tested on its own.
import { hopByHopNames } from '../util/headers.js';

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
