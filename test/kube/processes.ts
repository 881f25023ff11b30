// The processes a real control plane runs, each stopped by its PID: SIGTERM, then SIGKILL after a
// grace. Every process still running when the test process exits is killed then (a failed
// beforeAll, a crash), so no etcd or kube-apiserver outlives its test file.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) if (child.pid && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
});

/** Kills `child` by its PID when the test process exits, if it still runs then. */
export function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
}

export interface Started {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly log: string;
  /** The last lines of its log, for an error message. */
  tail(lines?: number): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `command` with stdout and stderr appended to `log`. */
export function startProcess(command: string, args: readonly string[], log: string, env: NodeJS.ProcessEnv = process.env): Started {
  const fd = openSync(log, 'a');
  const child = spawn(command, args, { stdio: ['ignore', fd, fd], env });
  closeSync(fd);
  if (!child.pid) throw new Error(`could not start ${command}`);
  running.add(child);
  const exited = once(child, 'exit').then(() => running.delete(child));
  const pid = child.pid;
  return {
    child,
    pid,
    log,
    tail: (lines = 15) => readFileSync(log, 'utf8').trimEnd().split('\n').slice(-lines).join('\n'),
    async stop(graceMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGKILL');
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** How a process is started in a UTS namespace of its own with `hostname`: real servers on one machine would otherwise share an identity (kube-apiserver derives its identity lease name from the hostname). */
export function withHostname(hostname: string, command: string, args: readonly string[]): { command: string; args: string[] } {
  // As root, a UTS namespace needs no user namespace; otherwise map the user to root in a new one.
  const ns = process.getuid?.() === 0 ? ['--uts'] : ['--user', '--map-root-user', '--uts'];
  return { command: 'unshare', args: [...ns, 'sh', '-c', 'hostname "$0" && exec "$@"', hostname, command, ...args] };
}

function listenOn(host: string, port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, host, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : undefined));
    });
  });
}

/** A port free on every one of `hosts` right now (real apiservers of one cluster share their secure port). */
export async function portFreeOnAll(hosts: readonly string[]): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await listenOn(hosts[0] as string, 0);
    if (port === undefined) continue;
    let free = true;
    for (const h of hosts.slice(1)) if ((await listenOn(h, port)) === undefined) free = false;
    if (free) return port;
  }
  throw new Error(`no port free on all of ${hosts.join(', ')}`);
}

export async function waitFor<T>(
  what: string,
  attempt: () => Promise<T | undefined>,
  timeoutMs: number,
  failed?: () => string | undefined,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    const why = failed?.();
    if (why) throw new Error(`${what}: ${why}`);
    try {
      const value = await attempt();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what}: not within ${Math.round(timeoutMs / 1000)} s${lastError ? ` (last error: ${lastError})` : ''}`);
}
