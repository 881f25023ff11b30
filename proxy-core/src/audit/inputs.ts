// Which server wrote each audit log: `SERVER=FILE` says it; a bare FILE is matched to the one server
// whose name its file name or its folder's name holds as a word (`apiserver-b-audit.log`,
// `/var/log/apiserver-b/audit.log`; "apiserver-1" is not in "apiserver-10.log").
import { basename, dirname } from 'node:path';
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

/** Each spec with its server; throws an InputError naming the file when a bare FILE matches no server or several. */
export function resolveAuditInputs(specs: readonly AuditInputSpec[], serverNames: readonly string[]): AuditInput[] {
  return specs.map((spec) => {
    if (spec.server !== undefined) return { server: spec.server, file: spec.file };
    if (spec.file === STDIN)
      throw new InputError('--audit-log -', 'standard input has no file name to match a server by: give it as SERVER=-');
    const names = [basename(spec.file), basename(dirname(spec.file))];
    const matches = serverNames.filter((server) => {
      const word = new RegExp(`(^|[^A-Za-z0-9])${escapeRegExp(server)}($|[^A-Za-z0-9])`);
      return names.some((n) => word.test(n));
    });
    if (matches.length === 1) return { server: matches[0]!, file: spec.file };
    const known = serverNames.length > 0 ? ` (servers: ${serverNames.join(', ')})` : ' (no servers are known to match it against)';
    const why = matches.length === 0 ? 'its file name names no server' : `its file name names several servers: ${matches.join(', ')}`;
    throw new InputError(`--audit-log ${spec.file}`, `${why}${known}; give it as SERVER=${spec.file}`);
  });
}
