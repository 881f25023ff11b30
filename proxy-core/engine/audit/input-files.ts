// An audit input that cannot be read at all is an error before anything is read, as kubectl's bad -f
// is: it names the flag, the file and the cause (a missing file, a directory, no permission, a named
// pipe that a one-time read would wait on for ever). Bad lines inside a readable file are not errors:
// the read counts and names them (read-audit.ts).
import { closeSync, constants, openSync, statSync } from 'node:fs';
import { InputError } from '../util/input-error.js';

/** `--audit-log [SERVER=]FILE` as given (inputs.ts AuditInputSpec). */
interface AuditInputSpec {
  readonly server?: string;
  readonly file: string;
}
import { STDIN } from './read-lines.js';

/** What an operator reads for a file system error code. */
export function describeFileError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return 'no such file';
  if (e.code === 'EACCES' || e.code === 'EPERM')
    return 'permission denied (audit logs are usually readable by root only: run as a user who may read it, or copy it)';
  if (e.code === 'EISDIR') return 'a directory, not a file (give the log file inside it)';
  if (e.code === 'ENOTDIR') return 'a part of its path is not a directory';
  if (e.code === 'ELOOP') return 'a symbolic link loop';
  return e.code ? `cannot be opened (${e.code})` : String(err);
}

/** The flag as the operator gave it: `--audit-log SERVER=FILE` or `--audit-log FILE`. */
export function auditFlagOf(spec: AuditInputSpec): string {
  return `--audit-log ${spec.server !== undefined ? `${spec.server}=` : ''}${spec.file}`;
}

/**
 * Throws an InputError naming the flag, the file and the cause when `spec`'s file cannot be read;
 * `follow`: the file is followed as it grows (a named pipe is then fine).
 */
export function checkAuditFile(spec: AuditInputSpec, follow: boolean): void {
  if (spec.file === STDIN) return;
  const fail = (why: string) => new InputError(auditFlagOf(spec), why);
  let stat;
  try {
    stat = statSync(spec.file);
  } catch (err) {
    throw fail(describeFileError(err));
  }
  if (stat.isDirectory()) throw fail('a directory, not a file (give the log file inside it)');
  if (stat.isFIFO()) {
    if (follow) return;
    throw fail('a named pipe: a one-time read would wait for its writer to end; give --follow to read it as it comes');
  }
  if (!stat.isFile()) throw fail('not a regular file');
  try {
    closeSync(openSync(spec.file, constants.O_RDONLY));
  } catch (err) {
    throw fail(describeFileError(err));
  }
}
