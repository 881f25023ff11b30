// Which server wrote each audit log: `SERVER=FILE` says it. A bare FILE is matched by what its
// server's own requests (its loopback client, user `system:apiserver`) show in it, else by its name:
//  1. the identity lease it renews (`update kube-system/leases/<name>`): Peerscope names a server found
//     through a kubeconfig by that lease, and only the server itself renews its own;
//  2. the address its own requests come from (sourceIPs), when that is one server's URL host — on one
//     machine with several servers, they may all come from its first address, so this only decides
//     when the lease did not (and among servers sharing that address, the file name picks one);
//  3. the one server whose name its file name or its folder's name holds as a word
//     (`apiserver-b-audit.log`, `/var/log/apiserver-b/audit.log`; "apiserver-1" is not in "apiserver-10.log").
// Evidence that points to several servers, a name that disagrees with what the events show, or two
// files that land on the same server: an error naming the file and the candidates.
import { basename, dirname } from 'node:path';
import { ServerNames } from '../cluster/server-names.js';
import { readLines } from './read-lines.js';
import { InputError } from '../util/input-error.js';
import { escapeRegExp } from '../util/regexp.js';
import { STDIN } from './read-lines.js';
import { checkAuditFile } from './input-files.js';

/**
 * Before matching: a file that cannot be read is an InputError naming the flag, the file and the cause
 * (input-files.ts), never blamed on its name. `follow`: the files are followed as they grow.
 */
export function checkAuditInputs(specs: readonly AuditInputSpec[], follow: boolean): void {
  for (const spec of specs) checkAuditFile(spec, follow);
}

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
  /** The host name the screens print it by (display-names.ts): SERVER= may give either. */
  readonly hostname?: string;
  readonly url?: string;
}

/**
 * The identity SERVER of `SERVER=FILE` names: a host name as the screens print it or a lease name
 * (cluster/server-names.ts). With no servers known there is nothing to check it against: it is taken as given.
 */
function serverOf(spec: AuditInputSpec & { server: string }, names: ServerNames | undefined): string {
  return names ? names.resolve(spec.server, `--audit-log ${spec.server}=${spec.file}`) : spec.server;
}

/** The servers as an error lists them: host name (lease name). */
function labels(servers: readonly AuditServer[], names: ServerNames | undefined): string[] {
  return servers.map((s) => names?.labelled(s.name) ?? s.name);
}

function namesOf(servers: readonly AuditServer[]): ServerNames | undefined {
  return servers.length > 0 ? new ServerNames(servers) : undefined;
}

/** The user kube-apiserver's own loopback client authenticates as. */
export const LOOPBACK_USER = 'system:apiserver';
/** How much of a file is looked at for the server's own requests (they come within seconds of its start, and all the time). */
const SOURCE_PEEK_LINES = 20_000;

/**
 * Each spec with its server; throws an InputError naming the file when SERVER names no server, or a
 * bare FILE matches no server or several.
 */
export function resolveAuditInputs(specs: readonly AuditInputSpec[], servers: readonly AuditServer[]): AuditInput[] {
  const names = namesOf(servers);
  return specs.map((spec) => {
    if (spec.server !== undefined) return { server: serverOf({ ...spec, server: spec.server }, names), file: spec.file };
    const byName = namedIn(spec, servers);
    if (byName.length === 1) return { server: byName[0]!, file: spec.file };
    throw unmatched(spec, labels(servers, names), byName);
  });
}

/** What a log's own requests show of its server. */
interface OwnEvidence {
  /** Identity leases its server renewed. */
  readonly leases: ReadonlySet<string>;
  /** Where its own requests came from. */
  readonly addresses: ReadonlySet<string>;
}

/**
 * As resolveAuditInputs, and a bare FILE is first matched by its server's own requests (the lease
 * it renews, then the address they come from); see the top of this file.
 */
export async function matchAuditInputs(specs: readonly AuditInputSpec[], servers: readonly AuditServer[]): Promise<AuditInput[]> {
  const names = servers.map((s) => s.name);
  const resolver = namesOf(servers);
  const out: AuditInput[] = [];
  const matchedBare = new Map<string, string>();
  for (const spec of specs) {
    if (spec.server !== undefined) {
      out.push({ server: serverOf({ ...spec, server: spec.server }, resolver), file: spec.file });
      continue;
    }
    const byName = namedIn(spec, servers);
    const own = await ownEvidence(spec.file);
    const byLease = names.filter((n) => own.leases.has(n));
    const sharing = servers.filter((s) => s.url !== undefined && own.addresses.has(hostOf(s.url))).map((s) => s.name);
    // Servers on one machine share the address their own requests come from: the file name decides among them.
    const bySource = sharing.length > 1 && byName.length === 1 && sharing.includes(byName[0]!) ? byName : sharing;
    const [evidence, candidates] =
      byLease.length > 0
        ? (['lease', byLease] as const)
        : bySource.length > 0
          ? (['source', bySource] as const)
          : (['name', byName] as const);
    const agree = evidence === 'name' || byName.length === 0 || byName.every((n) => candidates.includes(n));
    const server = candidates.length === 1 && agree ? candidates[0]! : undefined;
    if (server === undefined)
      throw unmatched(spec, labels(servers, resolver), byName, own, evidence === 'name' ? [] : candidates, evidence);
    const earlier = matchedBare.get(server);
    if (earlier !== undefined)
      throw new InputError(
        `--audit-log ${spec.file}`,
        `it and ${earlier} both match server ${server} (${describe(own, evidence, [server])}); give each as SERVER=FILE`,
      );
    matchedBare.set(server, spec.file);
    out.push({ server, file: spec.file });
  }
  return out;
}

function describe(own: OwnEvidence, evidence: 'lease' | 'source' | 'name', servers: readonly string[]): string {
  const who = servers.length === 1 ? servers[0] : `several servers: ${servers.join(', ')}`;
  if (evidence === 'lease') return `its server renews the identity lease of ${who}`;
  if (evidence === 'source') return `its server's own requests come from ${[...own.addresses].join(', ')}, the address of ${who}`;
  return `its file name names ${who}`;
}

/** The servers whose identity or host name the file's name or its folder's holds as a word. */
function namedIn(spec: AuditInputSpec, servers: readonly AuditServer[]): string[] {
  if (spec.file === STDIN)
    throw new InputError('--audit-log -', 'standard input has no file name to match a server by: give it as SERVER=-');
  const names = [basename(spec.file), basename(dirname(spec.file))];
  const holds = (name: string) => {
    const word = new RegExp(`(^|[^A-Za-z0-9])${escapeRegExp(name)}($|[^A-Za-z0-9])`);
    return names.some((n) => word.test(n));
  };
  return servers.filter((s) => holds(s.name) || (s.hostname !== undefined && holds(s.hostname))).map((s) => s.name);
}

function unmatched(
  spec: AuditInputSpec,
  serverNames: readonly string[],
  byName: readonly string[],
  own?: OwnEvidence,
  candidates: readonly string[] = [],
  evidence: 'lease' | 'source' | 'name' = 'name',
): InputError {
  const known = serverNames.length > 0 ? ` (servers: ${serverNames.join(', ')})` : ' (no servers are known to match it against)';
  const clauses: string[] = [];
  if (own && evidence !== 'name') clauses.push(describe(own, evidence, candidates));
  else if (own) {
    if (own.leases.size === 0 && own.addresses.size === 0)
      clauses.push(`its events hold no request of a server's own (user ${LOOPBACK_USER}) to match by`);
    else {
      if (own.leases.size > 0) clauses.push(`its server renews the identity lease ${[...own.leases].join(', ')}, no server's name`);
      if (own.addresses.size > 0) clauses.push(`its server's own requests come from ${[...own.addresses].join(', ')}, no server's address`);
    }
  }
  clauses.push(
    byName.length === 0
      ? 'its file name names no server'
      : byName.length === 1
        ? `its file name names ${byName[0]}`
        : `its file name names several servers: ${byName.join(', ')}`,
  );
  return new InputError(`--audit-log ${spec.file}`, `${clauses.join('; ')}${known}; give it as SERVER=${spec.file}`);
}

/** What the first lines of `file` show of its server's own requests; nothing when it cannot be read. */
async function ownEvidence(file: string): Promise<OwnEvidence> {
  const leases = new Set<string>();
  const addresses = new Set<string>();
  try {
    for await (const line of readLines(file)) {
      if (line.line > SOURCE_PEEK_LINES) break;
      // Cheap test first: most lines are other users'.
      if (!line.text.includes(LOOPBACK_USER)) continue;
      try {
        const e = JSON.parse(line.text) as {
          user?: { username?: unknown };
          sourceIPs?: unknown;
          verb?: unknown;
          objectRef?: { resource?: unknown; namespace?: unknown; name?: unknown };
        };
        if (e.user?.username !== LOOPBACK_USER) continue;
        if (Array.isArray(e.sourceIPs) && typeof e.sourceIPs[0] === 'string') addresses.add(normalizeHost(e.sourceIPs[0]));
        const ref = e.objectRef;
        // Renewing a lease, not deleting one: a server's lease collector deletes the expired leases of others.
        if (
          (e.verb === 'update' || e.verb === 'patch' || e.verb === 'create') &&
          ref?.resource === 'leases' &&
          ref.namespace === 'kube-system' &&
          typeof ref.name === 'string'
        )
          leases.add(ref.name);
      } catch {
        // A bad line is the read's to name, not the match's.
      }
    }
  } catch {
    // Unreadable here is named by the read itself.
  }
  return { leases, addresses };
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
