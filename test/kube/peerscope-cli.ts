// The built CLI (bin/peerscope) against a real control plane: `servers` once, and `serve` as a
// process of its own, stopped by its PID.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { repoRoot } from '../fixtures.js';
import { KUBECTL } from '../kubectl/kubectl.js';
import { track } from './processes.js';

export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const env = { ...process.env, HTTPS_PROXY: '', https_proxy: '', HTTP_PROXY: '', http_proxy: '' };

function run(command: string, args: readonly string[], timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: repoRoot, timeout: timeoutMs, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as NodeJS.ErrnoException).code === 'number' ? Number((err as NodeJS.ErrnoException).code) : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export function peerscope(args: readonly string[], timeoutMs?: number): Promise<Run> {
  return run(process.execPath, ['bin/peerscope', ...args], timeoutMs);
}

/** The real kubectl with a kubeconfig (or `--server URL` and no credentials) and a cache of its own. */
export function kubectl(target: { kubeconfig: string } | { server: string }, cacheDir: string) {
  const base = 'kubeconfig' in target ? ['--kubeconfig', target.kubeconfig] : ['--kubeconfig', '/dev/null', '--server', target.server];
  return (args: readonly string[], timeoutMs = 30_000) => run(KUBECTL, [...base, '--cache-dir', cacheDir, ...args], timeoutMs);
}

export interface Serve {
  readonly url: string;
  readonly stderr: () => string;
  stop(): Promise<void>;
}

/** `peerscope serve ARGS --listen 127.0.0.1:0`; resolves once it prints where it serves. */
export async function startServe(args: readonly string[]): Promise<Serve> {
  const child = spawn(process.execPath, ['bin/peerscope', 'serve', '--listen', '127.0.0.1:0', ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  track(child);
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const exited = once(child, 'exit');
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  const m = /^Starting to serve on (127\.0\.0\.1:\d+)$/.exec(first);
  if (!m) throw new Error(`serve printed "${first}" first; stderr: ${stderr}`);
  child.stdout!.resume();
  return {
    url: `http://${m[1]}`,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
