// What the recorded-rollout test (recording-rollout.test.ts) needs around its control plane: the audit
// webhook's files (its CA, serving certificate and one token per server, in the kubeconfig the server
// posts with), `serve --record` as a process the test may SIGKILL, a watch of each server's /version as
// the test itself sees it, the final events of a server's audit log, and a bounded loop of plain
// HTTPS clients straight to the servers and through the port.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { createCertificateAuthority, issueServerCertificate } from '../../proxy-core/engine/tls/certs.js';
import { repoRoot } from '../fixtures.js';
import type { ControlPlane } from './control-plane.js';
import { portFreeOnAll, track } from './processes.js';
import { HOST_IP } from './test-network.js';

export const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
`;

export interface WebhookBed {
  /** host:port the receiver listens on (this machine's end of the test network). */
  readonly listen: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** The kubeconfig a server posts its batches with (its own bearer token). */
  kubeconfig(host: string): string;
  /** The file holding `host`'s token, for --audit-webhook-token NAME=FILE. */
  tokenFile(host: string): string;
}

function writeSecret(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

/** The audit webhook's files, written before the servers start (they read their webhook kubeconfig at start). */
export async function webhookBed(dir: string): Promise<WebhookBed> {
  const port = await portFreeOnAll([HOST_IP]);
  const ca = await createCertificateAuthority('recording-webhook-ca');
  const serving = await issueServerCertificate(ca, { commonName: 'peerscope-audit-webhook', hosts: [HOST_IP] });
  const caFile = writeSecret(dir, 'webhook-ca.crt', ca.cert);
  const tokens = new Map<string, string>();
  return {
    listen: `${HOST_IP}:${port}`,
    certFile: writeSecret(dir, 'webhook.crt', serving.cert),
    keyFile: writeSecret(dir, 'webhook.key', serving.key),
    kubeconfig(host) {
      const token = randomBytes(16).toString('hex');
      tokens.set(host, writeSecret(dir, `${host}-webhook.token`, token));
      return writeSecret(
        dir,
        `${host}-webhook.kubeconfig`,
        `apiVersion: v1
kind: Config
clusters:
- name: peerscope
  cluster: {server: "https://${HOST_IP}:${port}/", certificate-authority: ${caFile}}
users:
- name: ${host}
  user: {token: ${token}}
contexts:
- name: webhook
  context: {cluster: peerscope, user: ${host}}
current-context: webhook
`,
      );
    },
    tokenFile(host) {
      const file = tokens.get(host);
      if (!file) throw new Error(`no webhook token was written for ${host}`);
      return file;
    },
  };
}

export interface RecordingServe {
  readonly url: string;
  readonly child: ChildProcess;
  readonly stderr: () => string;
  /** SIGTERM (SIGKILL after 10 s); resolves once it exited. */
  stop(): Promise<void>;
  /** SIGKILL by its PID, as power loss or the OOM killer would end it; resolves once it exited. */
  kill(): Promise<void>;
}

const cleanEnv = { ...process.env, HTTPS_PROXY: '', https_proxy: '', HTTP_PROXY: '', http_proxy: '' };

/** The built CLI's `serve ARGS --listen 127.0.0.1:0` on this Node; resolves once it prints where it serves. */
export async function startRecordingServe(args: readonly string[]): Promise<RecordingServe> {
  const child = spawn(process.execPath, ['bin/peerscope', 'serve', '--listen', '127.0.0.1:0', ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: cleanEnv,
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
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  return {
    url: `http://${m[1]}`,
    child,
    stderr: () => stderr,
    async stop() {
      if (ended()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (ended()) return;
      process.kill(child.pid as number, 'SIGKILL');
      await exited;
    },
  };
}

/** When a server's /version first answered each gitVersion, as the test sees it polling every `everyMs`. */
export interface VersionWatch {
  readonly seen: { readonly at: number; readonly gitVersion: string }[];
  stop(): Promise<void>;
}

export function watchVersion(cp: ControlPlane, url: string, everyMs = 100): VersionWatch {
  const agent = new Agent({ connect: { ca: cp.pki.caPem, timeout: 1_000 } });
  const seen: { at: number; gitVersion: string }[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      try {
        const res = await request(`${url}/version`, {
          dispatcher: agent,
          headers: { authorization: `Bearer ${cp.pki.adminToken}` },
          headersTimeout: 1_000,
          bodyTimeout: 1_000,
        });
        const body = await res.body.text();
        const gitVersion = res.statusCode === 200 ? (JSON.parse(body) as { gitVersion?: string }).gitVersion : undefined;
        if (gitVersion && seen.at(-1)?.gitVersion !== gitVersion) seen.push({ at: Date.now(), gitVersion });
      } catch {
        // The server is down between its stop and its replacement's start.
      }
      await new Promise((r) => setTimeout(r, Math.max(0, everyMs - (Date.now() - started))));
    }
  })();
  return {
    seen,
    async stop() {
      stopped = true;
      await loop;
      await agent.close();
    },
  };
}

/** A request's final audit event (ResponseComplete or Panic), as the server wrote it. */
export interface LoggedRequest {
  readonly auditID: string;
  readonly verb: string;
  readonly code: number | null;
  readonly userAgent: string;
  /** Epoch ms (fractional) the server received the request, and wrote this event. */
  readonly receivedAt: number;
  readonly stageAt: number;
}

/** The final events of an audit log (a line cut short by a write in progress is left out). */
export function loggedRequests(file: string): LoggedRequest[] {
  const out: LoggedRequest[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.includes('"ResponseComplete"') && !line.includes('"Panic"')) continue;
    let e: {
      auditID: string;
      stage: string;
      verb: string;
      userAgent?: string;
      responseStatus?: { code?: number };
      requestReceivedTimestamp: string;
      stageTimestamp: string;
    };
    try {
      e = JSON.parse(line) as typeof e;
    } catch {
      continue;
    }
    if (e.stage !== 'ResponseComplete' && e.stage !== 'Panic') continue;
    out.push({
      auditID: e.auditID,
      verb: e.verb,
      code: e.responseStatus?.code ?? null,
      userAgent: e.userAgent ?? '',
      receivedAt: microTime(e.requestReceivedTimestamp),
      stageAt: microTime(e.stageTimestamp),
    });
  }
  return out;
}

/** RFC 3339 with microseconds → epoch ms with its fraction (Date.parse keeps milliseconds only). */
function microTime(text: string): number {
  const m = /\.(\d+)Z$/.exec(text);
  const whole = Date.parse(m ? text.replace(/\.\d+Z$/, 'Z') : text);
  return m ? whole + Number(`0.${m[1]}`) * 1_000 : whole;
}

/** A plain HTTPS client's requests in a loop, at most `limit`, until stopped. */
export interface ClientLoop {
  readonly sent: () => number;
  stop(): Promise<void>;
}

/**
 * Every `everyMs`, each of `paths()` once to each of `targets()` as user agent `userAgent` (the admin
 * token; TLS verified against the cluster CA; the port is plain HTTP). A refused connection (a server
 * being replaced) is part of a rollout and is not retried.
 */
export function clientLoop(
  cp: ControlPlane,
  userAgent: string,
  targets: () => readonly string[],
  paths: () => readonly string[],
  everyMs: number,
  limit = 5_000,
): ClientLoop {
  const agent = new Agent({ connect: { ca: cp.pki.caPem, timeout: 1_000 }, connections: 4 });
  let sent = 0;
  let stopped = false;
  const one = async (url: string) => {
    try {
      const res = await request(url, {
        dispatcher: agent,
        headers: { authorization: `Bearer ${cp.pki.adminToken}`, 'user-agent': userAgent, accept: 'application/json' },
        headersTimeout: 5_000,
        bodyTimeout: 5_000,
      });
      await res.body.text();
    } catch {
      // A server down mid-rollout.
    }
  };
  const loop = (async () => {
    while (!stopped && sent < limit) {
      const started = Date.now();
      const urls = targets().flatMap((t) => paths().map((p) => `${t}${p}`));
      sent += urls.length;
      await Promise.all(urls.map(one));
      await new Promise((r) => setTimeout(r, Math.max(0, everyMs - (Date.now() - started))));
    }
  })();
  return {
    sent: () => sent,
    async stop() {
      stopped = true;
      await loop;
      await agent.close();
    },
  };
}
