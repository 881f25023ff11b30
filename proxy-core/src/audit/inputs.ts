// Which server wrote each audit log: `SERVER=FILE` says it; a bare FILE is matched to the one server
// whose own requests its events show (matchAuditInputs: kube-apiserver's loopback client, user
// `system:apiserver`, connects to the server's own bind address, so those events' sourceIPs are the
// server's address), or to the one server whose name its file name or its folder's name holds as a
// word (`apiserver-b-audit.log`, `/var/log/apiserver-b/audit.log`; "apiserver-1" is not in
// "apiserver-10.log"). Anything else is an error naming the file and the candidates.
import { basename, dirname } from 'node:path';
import { readLines } from './read-lines.js';
import { InputError } from '../util/input-error.js';
import { escapeRegExp } from '../util/regexp.js';
import { STDIN } from './read-lines.js';

export interface AuditInputSpec {
  readonly server?: string;
  readonly file: string;
}

export interface AuditInput {
  readonly server: string;
  readonly file: string;
}

/** A repeatable option's parser: the specs given so far and this one. */
export function collectAuditInputSpec(value: string, previous: AuditInputSpec[] = []): AuditInputSpec[] {
  return [...previous, parseAuditInputSpec(value)];
}

/** `SERVER=FILE` or `FILE`. A name never holds a path separator, so `./a=b.log` is a file. */
export function parseAuditInputSpec(value: string): AuditInputSpec {
  const eq = value.indexOf('=');
  const name = eq > 0 ? value.slice(0, eq) : '';
  if (name && !name.includes('/') && !name.includes('\\') && eq < value.length - 1) return { server: name, file: value.slice(eq + 1) };
  return { file: value };
}

/** A server a bare FILE may be matched to: its name, and its URL (whose host its own requests come from). */
export interface AuditServer {
  readonly name: string;
  readonly url?: string;
}

/** The user kube-apiserver's own loopback client authenticates as. */
export const LOOPBACK_USER = 'system:apiserver';
/** How much of a file is looked at for the server's own requests (they come within seconds of its start, and all the time). */
const SOURCE_PEEK_LINES = 20_000;

/** Each spec with its server; throws an InputError naming the file when a bare FILE matches no server or several. */
export function resolveAuditInputs(specs: readonly AuditInputSpec[], serverNames: readonly string[]): AuditInput[] {
  return specs.map((spec) => {
    if (spec.server !== undefined) return { server: spec.server, file: spec.file };
    const byName = namedIn(spec, serverNames);
    if (byName.length === 1) return { server: byName[0]!, file: spec.file };
    throw unmatched(spec, serverNames, byName, []);
  });
}

/**
 * As resolveAuditInputs, and a bare FILE is first matched by the sourceIPs of its server's own
 * requests: the server whose URL's host they come from. A file whose own requests point to one
 * server and whose name to another, or to several, is an error naming the candidates.
 */
export async function matchAuditInputs(specs: readonly AuditInputSpec[], servers: readonly AuditServer[]): Promise<AuditInput[]> {
  const names = servers.map((s) => s.name);
  const out: AuditInput[] = [];
  for (const spec of specs) {
    if (spec.server !== undefined) {
      out.push({ server: spec.server, file: spec.file });
      continue;
    }
    const byName = namedIn(spec, names);
    const addresses = await ownAddresses(spec.file);
    const bySource = servers.filter((s) => s.url !== undefined && addresses.has(hostOf(s.url))).map((s) => s.name);
    const candidates = bySource.length > 0 ? bySource : byName;
    const agree = bySource.length === 0 || byName.length === 0 || byName.every((n) => bySource.includes(n));
    if (candidates.length === 1 && agree) out.push({ server: candidates[0]!, file: spec.file });
    else throw unmatched(spec, names, byName, bySource, addresses);
  }
  return out;
}

function namedIn(spec: AuditInputSpec, serverNames: readonly string[]): string[] {
  if (spec.file === STDIN)
    throw new InputError('--audit-log -', 'standard input has no file name to match a server by: give it as SERVER=-');
  const names = [basename(spec.file), basename(dirname(spec.file))];
  return serverNames.filter((server) => {
    const word = new RegExp(`(^|[^A-Za-z0-9])${escapeRegExp(server)}($|[^A-Za-z0-9])`);
    return names.some((n) => word.test(n));
  });
}

function unmatched(
  spec: AuditInputSpec,
  serverNames: readonly string[],
  byName: readonly string[],
  bySource: readonly string[],
  addresses?: ReadonlySet<string>,
): InputError {
  const known = serverNames.length > 0 ? ` (servers: ${serverNames.join(', ')})` : ' (no servers are known to match it against)';
  const own =
    addresses === undefined
      ? ''
      : addresses.size === 0
        ? `its events hold no request of a server's own (user ${LOOPBACK_USER}) to match by sourceIPs, and `
        : bySource.length === 0
          ? `its server's own requests come from ${[...addresses].join(', ')}, no server's address, and `
          : bySource.length > 1
            ? `its server's own requests come from ${[...addresses].join(', ')}, the address of several servers: ${bySource.join(', ')}; `
            : `its server's own requests come from ${[...addresses].join(', ')} (${bySource[0]}), but `;
  const why =
    byName.length === 0
      ? 'its file name names no server'
      : byName.length === 1
        ? `its file name names ${byName[0]}`
        : `its file name names several servers: ${byName.join(', ')}`;
  return new InputError(`--audit-log ${spec.file}`, `${own}${why}${known}; give it as SERVER=${spec.file}`);
}

/** The sourceIPs of the server's own requests among the first lines of `file`; empty when it cannot be read. */
async function ownAddresses(file: string): Promise<Set<string>> {
  const found = new Set<string>();
  try {
    for await (const line of readLines(file)) {
      if (line.line > SOURCE_PEEK_LINES) break;
      // Cheap test first: most lines are other users'.
      if (!line.text.includes(LOOPBACK_USER)) continue;
      try {
        const e = JSON.parse(line.text) as { user?: { username?: unknown }; sourceIPs?: unknown };
        if (e.user?.username === LOOPBACK_USER && Array.isArray(e.sourceIPs) && typeof e.sourceIPs[0] === 'string')
          found.add(normalizeHost(e.sourceIPs[0]));
      } catch {
        // A bad line is the read's to name, not the match's.
      }
    }
  } catch {
    // Unreadable here is named by the read itself.
  }
  return found;
}

function hostOf(url: string): string {
  try {
    return normalizeHost(new URL(url).hostname);
  } catch {
    return '';
  }
}

/** "[::1]" and "::1" alike. */
function normalizeHost(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}
