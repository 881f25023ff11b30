// The rotated predecessors of an audit log, oldest first, so a log and its history read in time order.
// Two namings: kube-apiserver's own rotation (--audit-log-maxbackup; `audit-2026-11-26T05-44-31.123.log`,
// `.gz` with --audit-log-compress) and logrotate's (`audit.log.1`, `audit.log.2.gz`, higher is older).
import { readdirSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { escapeRegExp } from '../util/regexp.js';

const TIMESTAMP = String.raw`\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}`;

export function rotatedFiles(file: string): string[] {
  const dir = dirname(file);
  const name = basename(file);
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  const byTimestamp = new RegExp(`^${escapeRegExp(stem)}-(${TIMESTAMP})${escapeRegExp(ext)}(\\.gz)?$`);
  const byNumber = new RegExp(`^${escapeRegExp(name)}\\.(\\d+)(\\.gz)?$`);
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const stamped: { file: string; at: string }[] = [];
  const numbered: { file: string; n: number }[] = [];
  for (const entry of entries) {
    const t = byTimestamp.exec(entry);
    if (t) stamped.push({ file: join(dir, entry), at: t[1]! });
    const n = byNumber.exec(entry);
    if (n) numbered.push({ file: join(dir, entry), n: Number(n[1]) });
  }
  stamped.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  numbered.sort((a, b) => b.n - a.n);
  return [...numbered.map((x) => x.file), ...stamped.map((x) => x.file)];
}
