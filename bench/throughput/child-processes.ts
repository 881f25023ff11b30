// Starting, watching and stopping the child processes of the bench: free ports, "Starting to serve"
// lines, listening sockets, graceful stops with a SIGKILL fallback, and tools found on PATH.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export async function freePort(): Promise<number> {
  const s = createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Starts `cmd` and waits for its `Starting to serve on HOST:PORT` line (peerscope, kubectl, bare proxy). */
export async function startServing(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    if (stderr.length < 4_000) stderr += c.toString();
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${cmd} did not start within 30 s: ${stderr.trim()}`)), 30_000);
    lines.on('line', (line) => {
      const m = /Starting to serve on .*:(\d+)\s*$/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} exited with ${code}: ${stderr.trim()}`));
    });
  });
  // Keep draining both pipes so the child never blocks on a full one.
  child.stdout!.resume();
  return { child, port };
}

export async function waitForPort(port: number, child: ChildProcess, what: string): Promise<void> {
  const until = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`${what} did not listen on ${port} within 15 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** An executable on PATH (or at an absolute path), or undefined. */
export function findTool(name: string): string | undefined {
  const dirs = name.startsWith('/') ? [''] : (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/local/sbin', '/sbin']);
  for (const d of dirs) {
    const p = d ? join(d, name) : name;
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // next
    }
  }
  return undefined;
}
