// A process's resident memory by kind of mapping (/proc/PID/smaps): Node's binary, the main malloc
// heap, glibc's per-thread arenas, V8's pages and the rest — to tell what holds RSS after a load.
import { readFileSync } from 'node:fs';

interface Mapping {
  readonly start: number;
  readonly end: number;
  readonly perm: string;
  readonly name: string;
  rssKiB: number;
}

const MiB = 1 << 20;
/** glibc's thread arenas are 64 MiB-aligned heaps: a read-write part followed by its reserve. */
const ARENA_ALIGN = 64 * MiB;
/** V8 allocates its pages in 256 KiB-aligned chunks. */
const V8_PAGE = 256 << 10;

function mappings(pid: number): Mapping[] {
  const out: Mapping[] = [];
  let cur: Mapping | undefined;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      cur = { start: parseInt(head[1]!, 16), end: parseInt(head[2]!, 16), perm: head[3]!, name: head[4]!, rssKiB: 0 };
      out.push(cur);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && cur) cur.rssKiB = Number(rss[1]);
  }
  return out;
}

function kind(m: Mapping, next: Mapping | undefined): string {
  if (m.name === '[heap]') return 'malloc main heap';
  if (m.name.startsWith('[')) return m.name;
  if (m.name) return m.name.split('/').pop()!;
  if (m.start % ARENA_ALIGN === 0 && next?.perm === '---p' && next.start === m.end) return 'malloc thread arenas';
  if (m.start % V8_PAGE === 0 && (m.end - m.start) % V8_PAGE === 0) return 'anonymous, 256 KiB-aligned (V8 pages)';
  return 'anonymous, other (large mallocs, stacks)';
}

/** RSS in MiB by kind, largest first. */
export function rssByKind(pid: number): { kind: string; mib: number; count: number }[] {
  const maps = mappings(pid);
  const byKind = new Map<string, { kind: string; mib: number; count: number }>();
  maps.forEach((m, i) => {
    const k = kind(m, maps[i + 1]);
    const row = byKind.get(k) ?? { kind: k, mib: 0, count: 0 };
    row.mib += m.rssKiB / 1024;
    row.count++;
    byKind.set(k, row);
  });
  return [...byKind.values()].filter((r) => r.mib >= 0.05).sort((a, b) => b.mib - a.mib);
}

export function formatRssByKind(pid: number): string {
  return rssByKind(pid)
    .slice(0, 8)
    .map((r) => `${r.kind} ${r.mib.toFixed(1)}`)
    .join(', ');
}
