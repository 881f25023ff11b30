// Which server wrote each audit log: `SERVER=FILE` says it; a bare FILE is matched to the one server
// whose name its path contains (`/var/log/apiserver-b/audit.log`, `apiserver-b-audit.log`).
import { STDIN } from './read-lines.js';

export interface AuditInputSpec {
  readonly server?: string;
  readonly file: string;
}

export interface AuditInput {
  readonly server: string;
  readonly file: string;
}

/** `SERVER=FILE` or `FILE`. A name never holds a path separator, so `./a=b.log` is a file. */
export function parseAuditInputSpec(value: string): AuditInputSpec {
  const eq = value.indexOf('=');
  const name = eq > 0 ? value.slice(0, eq) : '';
  if (name && !name.includes('/') && !name.includes('\\') && eq < value.length - 1) return { server: name, file: value.slice(eq + 1) };
  return { file: value };
}

/** Each spec with its server; throws an Error that names the file when a bare FILE matches no server or several. */
export function resolveAuditInputs(specs: readonly AuditInputSpec[], serverNames: readonly string[]): AuditInput[] {
  return specs.map((spec) => {
    if (spec.server !== undefined) return { server: spec.server, file: spec.file };
    if (spec.file === STDIN) throw new Error('standard input has no file name to match a server by: give it as SERVER=-');
    // Longest names first, so "apiserver-10" is not also taken for "apiserver-1".
    const matches = serverNames.filter((name) => spec.file.includes(name));
    const longest = matches.filter((m) => !matches.some((other) => other !== m && other.includes(m)));
    if (longest.length === 1) return { server: longest[0]!, file: spec.file };
    const known = serverNames.length > 0 ? ` (servers: ${serverNames.join(', ')})` : ' (no servers are known to match it against)';
    const why = longest.length === 0 ? 'its path names no server' : `its path names several servers: ${longest.join(', ')}`;
    throw new Error(`--audit-log ${spec.file}: ${why}${known}; give it as SERVER=${spec.file}`);
  });
}
