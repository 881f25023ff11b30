// The targets that are other programs: kubectl proxy with a generated kubeconfig, and nginx with a
// generated configuration that runs without root. Both are skipped when not installed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startServing, stopChild, waitForPort } from './child-processes.js';
import { processTree } from './procs.js';
import type { Files, Target, UpstreamProcess } from './targets.js';

/**
 * A kubeconfig for `server`: with the bench's CA and token (`files`) for an apiserver, without user
 * credentials for a proxy's loopback port.
 */
export function writeKubeconfig(file: string, server: string, files?: Files): string {
  const cluster = files
    ? [`    server: ${server}`, `    certificate-authority-data: ${readFileSync(files.caFile).toString('base64')}`]
    : [`    server: ${server}`];
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: bench',
      '  cluster:',
      ...cluster,
      'users:',
      '- name: bench',
      files ? '  user:' : '  user: {}',
      ...(files ? [`    token: ${files.token}`] : []),
      'contexts:',
      '- name: bench',
      '  context: {cluster: bench, user: bench}',
      'current-context: bench',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return file;
}

export async function startKubectlProxy(files: Files, kubectl: string, upstream: UpstreamProcess): Promise<Target> {
  const kubeconfig = writeKubeconfig(join(files.dir, 'kubeconfig'), upstream.url, files);
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
