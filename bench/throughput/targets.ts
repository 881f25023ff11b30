// The processes of the throughput bench: the two fake apiservers (upstream.ts) and the targets in
// front of them, each in its own process so its CPU and memory can be read from /proc.
//
//   direct            the client talks HTTPS to the "new" apiserver itself (no proxy)
//   peerscope         bin/peerscope serve, both apiservers, round-robin (half the requests rerouted)
//   peerscope-local   bin/peerscope serve, the "new" apiserver only (no rerouting)
//   kubectl           /usr/bin/kubectl proxy, generated kubeconfig with the CA and a token
//   nginx             one worker, upstream keepalive, proxy_ssl_verify against the CA
//   bare-undici       node:http + one undici Pool, no routing (bare-proxy.ts)
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { UpstreamConfig, UpstreamStats } from './upstream.js';
import { processTree } from './procs.js';

export interface Files {
  readonly dir: string;
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  readonly token: string;
  readonly tokenFile: string;
  readonly buildDir: string;
}

export interface UpstreamProcess {
  readonly name: string;
  readonly url: string;
  readonly pids: readonly number[];
  stats(): Promise<UpstreamStats>;
  stop(): Promise<void>;
}

export type TargetName = 'direct' | 'peerscope' | 'peerscope-local' | 'kubectl' | 'nginx' | 'bare-undici' | 'node-floor';

export interface Target {
  readonly name: TargetName;
  /** Base URL the load generator uses. */
  readonly url: string;
  /** Direct only: the client must speak TLS (and verify with the CA) and bring the token. */
  readonly direct: boolean;
  /** The proxy's processes (its whole tree, for nginx's worker); empty for direct. */
  pids(): number[];
  stop(): Promise<void>;
}

export const TARGET_LABEL: Record<TargetName, string> = {
  direct: 'direct (no proxy)',
  peerscope: 'Peerscope (2 servers, round-robin)',
  'peerscope-local': 'Peerscope local-only (1 server)',
  kubectl: 'kubectl proxy',
  nginx: 'nginx (1 worker, keepalive)',
  'bare-undici': 'bare undici proxy',
  'node-floor': 'Node floor (raw socket + undici)',
};

export async function freePort(): Promise<number> {
  const s = createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Starts `cmd` and waits for its `Starting to serve on HOST:PORT` line (peerscope, kubectl, bare proxy). */
async function startServing(
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

async function waitForPort(port: number, child: ChildProcess, what: string): Promise<void> {
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

export async function startUpstream(
  files: Files,
  config: Omit<UpstreamConfig, 'certFile' | 'keyFile' | 'token'>,
): Promise<UpstreamProcess> {
  const configFile = join(files.dir, `upstream-${config.name}.json`);
  const full: UpstreamConfig = { ...config, certFile: files.certFile, keyFile: files.keyFile, token: files.token };
  writeFileSync(configFile, JSON.stringify(full));
  const child = spawn(process.execPath, [join(files.buildDir, 'upstream.mjs'), configFile], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ port: number; pids: number[] }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`upstream ${config.name} did not start within 30 s`)), 30_000);
    child.on('message', (m: { ready?: boolean; port: number; pids: number[] }) => {
      if (m.ready) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`upstream ${config.name} exited with ${code}`));
    });
  });
  let nextId = 0;
  return {
    name: config.name,
    url: `https://127.0.0.1:${ready.port}`,
    pids: ready.pids,
    stats: () =>
      new Promise((resolve) => {
        const id = ++nextId;
        const onMessage = (m: { stats?: UpstreamStats; id?: number }) => {
          if (m.stats && m.id === id) {
            child.off('message', onMessage);
            resolve(m.stats);
          }
        };
        child.on('message', onMessage);
        child.send({ cmd: 'stats', id });
      }),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}

export function startDirect(upstream: UpstreamProcess): Target {
  return { name: 'direct', url: upstream.url, direct: true, pids: () => [], stop: async () => undefined };
}

export async function startPeerscope(
  files: Files,
  servers: readonly UpstreamProcess[],
  name: 'peerscope' | 'peerscope-local',
  nodeFlags: readonly string[] = [],
): Promise<Target> {
  const args = [
    ...nodeFlags,
    'bin/peerscope',
    'serve',
    ...servers.flatMap((s) => ['--server', `${s.name}=${s.url}`]),
    '--ca',
    files.caFile,
    '--token-file',
    files.tokenFile,
    '--listen',
    '127.0.0.1:0',
    '--policy',
    'round-robin',
  ];
  const { child, port } = await startServing(process.execPath, args);
  return { name, url: `http://127.0.0.1:${port}`, direct: false, pids: () => [child.pid as number], stop: () => stopChild(child) };
}

export async function startBareUndici(files: Files, upstream: UpstreamProcess, nodeFlags: readonly string[] = []): Promise<Target> {
  const { child, port } = await startServing(process.execPath, [
    ...nodeFlags,
    join(files.buildDir, 'bare-proxy.mjs'),
    upstream.url,
    files.caFile,
    files.token,
  ]);
  return {
    name: 'bare-undici',
    url: `http://127.0.0.1:${port}`,
    direct: false,
    pids: () => [child.pid as number],
    stop: () => stopChild(child),
  };
}

/** floor-proxy.ts: what any Node proxy keeps of the gap (no node:http on the client side, no checks). */
export async function startNodeFloor(files: Files, upstream: UpstreamProcess): Promise<Target> {
  const { child, port } = await startServing(process.execPath, [
    join(files.buildDir, 'floor-proxy.mjs'),
    upstream.url,
    files.caFile,
    files.token,
  ]);
  return {
    name: 'node-floor',
    url: `http://127.0.0.1:${port}`,
    direct: false,
    pids: () => [child.pid as number],
    stop: () => stopChild(child),
  };
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

export async function startKubectlProxy(files: Files, kubectl: string, upstream: UpstreamProcess): Promise<Target> {
  const kubeconfig = join(files.dir, 'kubeconfig');
  const caData = readFileSync(files.caFile).toString('base64');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: bench',
      '  cluster:',
      `    server: ${upstream.url}`,
      `    certificate-authority-data: ${caData}`,
      'users:',
      '- name: bench',
      '  user:',
      `    token: ${files.token}`,
      'contexts:',
      '- name: bench',
      '  context: {cluster: bench, user: bench}',
      'current-context: bench',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  const home = join(files.dir, 'kubectl-home');
  mkdirSync(home, { recursive: true });
  const { child, port } = await startServing(
    kubectl,
    ['proxy', '--kubeconfig', kubeconfig, '--port=0', '--address=127.0.0.1', '--accept-hosts=^127\\.0\\.0\\.1$,^localhost$'],
    { ...process.env, HOME: home, KUBECACHEDIR: join(home, 'cache') },
  );
  return {
    name: 'kubectl',
    url: `http://127.0.0.1:${port}`,
    direct: false,
    pids: () => [child.pid as number],
    stop: () => stopChild(child),
  };
}

export async function startNginx(files: Files, nginx: string, upstream: UpstreamProcess): Promise<Target> {
  const prefix = join(files.dir, 'nginx');
  mkdirSync(join(prefix, 'logs'), { recursive: true });
  const port = await freePort();
  const upstreamPort = new URL(upstream.url).port;
  const conf = join(prefix, 'nginx.conf');
  // Runs without root: every path is under the prefix, the master stays in the foreground.
  writeFileSync(
    conf,
    `worker_processes 1;
daemon off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${prefix}/client_body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  keepalive_requests 1000000;
  keepalive_timeout 120s;
  upstream apiserver {
    server 127.0.0.1:${upstreamPort};
    keepalive 64;
    keepalive_requests 1000000;
    keepalive_timeout 120s;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass https://apiserver;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $proxy_host;
      proxy_set_header Authorization "Bearer ${files.token}";
      proxy_ssl_verify on;
      proxy_ssl_trusted_certificate ${files.caFile};
      proxy_ssl_name localhost;
      proxy_ssl_server_name on;
      proxy_ssl_session_reuse on;
      # Streams like the other proxies (a watch must flow event by event).
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
    }
  }
}
`,
  );
  const check = spawnSync(nginx, ['-t', '-q', '-p', prefix, '-c', conf, '-e', join(prefix, 'logs', 'error.log')], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx -t failed: ${(check.stderr || check.stdout).trim()}`);
  const child = spawn(nginx, ['-p', prefix, '-c', conf, '-e', join(prefix, 'logs', 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.resume();
  await waitForPort(port, child, 'nginx');
  // SIGQUIT: graceful stop of master and worker.
  return {
    name: 'nginx',
    url: `http://127.0.0.1:${port}`,
    direct: false,
    pids: () => processTree(child.pid as number),
    stop: () => stopChild(child, 'SIGQUIT'),
  };
}
