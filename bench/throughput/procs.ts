// What a process costs, read from /proc: CPU time (utime + stime of every thread, in clock ticks)
// and resident memory. Linux only; elsewhere the figures are absent and the report says so.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: 100 on every Linux the bench runs on (sysconf(_SC_CLK_TCK) is not reachable from Node). */
const CLK_TCK = 100;

export const procAvailable = existsSync('/proc/self/stat');

/** CPU seconds (user + system, all threads) used so far by `pids`; dead pids count 0. */
export function cpuSeconds(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name, which may contain spaces: state is field 3, utime 14, stime 15.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(rest[11]) + Number(rest[12]);
    } catch {
      // gone
    }
  }
  return ticks / CLK_TCK;
}

/** Resident set size of `pids`, summed, in MiB. */
export function rssMiB(pids: readonly number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}

/** `pid` and every process below it (nginx's workers, a shell's children). */
export function processTree(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(Number(entry), ppid);
    } catch {
      // gone
    }
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    for (const [child, parent] of parentOf) if (parent === out[i]) out.push(child);
  }
  return out;
}

/**
 * Read and write system calls made so far by `pids`, and the bytes they moved (/proc/PID/io syscr,
 * syscw, rchar, wchar; writev counts as one write).
 */
export function syscallCounts(pids: readonly number[]): { reads: number; writes: number; readBytes: number; writeBytes: number } {
  const sum = { reads: 0, writes: 0, readBytes: 0, writeBytes: 0 };
  for (const pid of pids) {
    try {
      const io = readFileSync(`/proc/${pid}/io`, 'utf8');
      sum.reads += Number(/syscr:\s+(\d+)/.exec(io)?.[1] ?? 0);
      sum.writes += Number(/syscw:\s+(\d+)/.exec(io)?.[1] ?? 0);
      sum.readBytes += Number(/rchar:\s+(\d+)/.exec(io)?.[1] ?? 0);
      sum.writeBytes += Number(/wchar:\s+(\d+)/.exec(io)?.[1] ?? 0);
    } catch {
      // gone, or not readable
    }
  }
  return sum;
}

/**
 * Context switches of the main threads of `pids` so far (/proc/PID/status): voluntary ones (the thread
 * waited, for a socket or a timer) and involuntary ones (the kernel gave its core to another runnable
 * thread). A busy stage of a pipeline that is preempted often is sharing its core.
 */
export function contextSwitches(pids: readonly number[]): { voluntary: number; involuntary: number } {
  const sum = { voluntary: 0, involuntary: 0 };
  for (const pid of pids) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      sum.voluntary += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      sum.involuntary += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return sum;
}
