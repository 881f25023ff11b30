// Bearer credentials from a kubeconfig user, as client-go applies them: a static token, a token file
// re-read when it changes, or an exec credential plugin (client.authentication.k8s.io v1/v1beta1)
// whose token is cached until its expirationTimestamp and fetched again after a 401.
// The data path needs the token synchronously, so exec plugins refresh in the background.
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { delimiter } from 'node:path';
import type { ExecConfig, ResolvedKubeconfig } from './kubeconfig.js';
import { keyPairProblem } from './pem.js';
import { PeerscopeError } from '../../contract/errors.js';

export interface BearerSource {
  /** The token to send now, if any. */
  token(): string | undefined;
  /** Fetch a fresh token (exec plugins); resolves once one is at hand. */
  refresh(): Promise<void>;
  /** The server answered 401 with this token: forget it and fetch again. */
  unauthorized(): void;
  /** Client certificate an exec plugin returned, if any. */
  clientCert(): { cert: string; key: string } | undefined;
}

export class CredentialError extends PeerscopeError {
  override readonly name = 'CredentialError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('PEERSCOPE_ERR_CREDENTIALS', message, options);
  }
}

export function bearerSourceFor(k: ResolvedKubeconfig, env: NodeJS.ProcessEnv = process.env): BearerSource {
  const c = k.credential;
  switch (c.kind) {
    case 'token':
      return staticSource(c.token);
    case 'tokenFile':
      return tokenFileSource(c.path);
    case 'exec':
      return new ExecCredentialSource(c.exec, { env, server: k.server, ...(k.tls.ca ? { ca: k.tls.ca } : {}) });
    case 'basic':
      throw new CredentialError(
        `user "${k.userName}" uses basic authentication (username/password), which Kubernetes removed in 1.19; use a token or an exec plugin`,
      );
    case 'none':
      return staticSource(undefined);
  }
}

function staticSource(token: string | undefined): BearerSource {
  return { token: () => token, refresh: async () => undefined, unauthorized: () => undefined, clientCert: () => undefined };
}

/**
 * A token file is re-read when its mtime changes: rotated service-account tokens keep working. The
 * mtime is checked at most once per `recheckMs` (default 1 s; client-go re-reads once a minute): the
 * data path asks for the token on every request, and a stat per request cost ~8 µs of its CPU.
 */
export function tokenFileSource(path: string, options: { readonly recheckMs?: number } = {}): BearerSource {
  const recheckMs = options.recheckMs ?? 1_000;
  let mtime = -1;
  let checkedAt = -Infinity;
  let token: string | undefined;
  const read = () => {
    const now = Date.now();
    if (now - checkedAt < recheckMs) return token;
    checkedAt = now;
    try {
      const m = statSync(path).mtimeMs;
      if (m !== mtime) {
        token = readFileSync(path, 'utf8').trim() || undefined;
        mtime = m;
      }
    } catch {
      // Keep the last token: a rotation may replace the file in two steps.
    }
    return token;
  };
  if (read() === undefined) throw new CredentialError(`tokenFile ${path}: cannot read a token`);
  return {
    token: read,
    refresh: async () => {
      checkedAt = -Infinity;
      read();
    },
    // A 401: the file may hold a newer token already; read it now.
    unauthorized: () => {
      mtime = -1;
      checkedAt = -Infinity;
    },
    clientCert: () => undefined,
  };
}

interface ExecOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly server: string;
  readonly ca?: string;
  /** PATH to find the plugin in; default: the login shell's PATH, then this process's. */
  readonly path?: string;
  readonly now?: () => number;
  readonly timeoutMs?: number;
}

interface ExecStatus {
  token?: string;
  expirationTimestamp?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
}

export class ExecCredentialSource implements BearerSource {
  private status: ExecStatus | undefined;
  private expiresAt = 0;
  private inFlight: Promise<void> | undefined;
  private readonly now: () => number;

  constructor(
    private readonly exec: ExecConfig,
    private readonly options: ExecOptions,
  ) {
    if (exec.interactiveMode === 'Always') {
      throw new CredentialError(
        `exec plugin "${exec.command}" needs an interactive terminal (interactiveMode: Always), which Peerscope cannot give it; log in with kubectl first or use a plugin that caches its credential`,
      );
    }
    this.now = options.now ?? Date.now;
  }

  token(): string | undefined {
    if (this.status && this.expiresAt && this.now() >= this.expiresAt - 10_000) void this.refresh();
    return this.status?.token;
  }

  clientCert(): { cert: string; key: string } | undefined {
    const s = this.status;
    return s?.clientCertificateData && s.clientKeyData ? { cert: s.clientCertificateData, key: s.clientKeyData } : undefined;
  }

  unauthorized(): void {
    this.expiresAt = 1; // forces the next token() to refresh
    void this.refresh();
  }

  refresh(): Promise<void> {
    this.inFlight ??= this.run().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private run(): Promise<void> {
    const e = this.exec;
    const execInfo = {
      apiVersion: e.apiVersion,
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        ...(e.provideClusterInfo
          ? {
              cluster: {
                server: this.options.server,
                ...(this.options.ca ? { 'certificate-authority-data': Buffer.from(this.options.ca).toString('base64') } : {}),
              },
            }
          : {}),
      },
    };
    const env: NodeJS.ProcessEnv = {
      ...this.options.env,
      PATH: this.options.path ?? pluginPath(this.options.env),
      KUBERNETES_EXEC_INFO: JSON.stringify(execInfo),
    };
    for (const v of e.env ?? []) env[v.name] = v.value;
    return new Promise((resolve, reject) => {
      execFile(
        e.command,
        e.args ?? [],
        { env, timeout: this.options.timeoutMs ?? 60_000, maxBuffer: 1024 * 1024 },
        (err, stdout, stderr) => {
          if (err) {
            const code = (err as NodeJS.ErrnoException).code;
            if (code === 'ENOENT') {
              return reject(
                new CredentialError(`exec plugin "${e.command}" was not found in PATH${e.installHint ? `: ${e.installHint.trim()}` : ''}`),
              );
            }
            return reject(
              new CredentialError(`exec plugin "${e.command}" failed: ${(stderr || err.message).trim().split('\n').slice(-1)[0]}`),
            );
          }
          let parsed: { apiVersion?: string; kind?: string; status?: ExecStatus };
          try {
            parsed = JSON.parse(stdout);
          } catch {
            return reject(new CredentialError(`exec plugin "${e.command}" printed something that is not an ExecCredential JSON`));
          }
          if (parsed.kind !== 'ExecCredential' || parsed.apiVersion !== e.apiVersion) {
            return reject(
              new CredentialError(
                `exec plugin "${e.command}" returned ${parsed.kind ?? '?'} ${parsed.apiVersion ?? '?'}, expected ExecCredential ${e.apiVersion}`,
              ),
            );
          }
          const status = parsed.status ?? {};
          if (!status.token && !(status.clientCertificateData && status.clientKeyData)) {
            return reject(new CredentialError(`exec plugin "${e.command}" returned neither a token nor a client certificate`));
          }
          const mismatch =
            status.clientCertificateData && status.clientKeyData && keyPairProblem(status.clientCertificateData, status.clientKeyData);
          if (mismatch) {
            const field = mismatch.in === 'cert' ? 'clientCertificateData' : 'clientKeyData';
            return reject(new CredentialError(`exec plugin "${e.command}" returned a ${field} that ${mismatch.problem}`));
          }
          this.status = status;
          this.expiresAt = status.expirationTimestamp ? Date.parse(status.expirationTimestamp) : 0;
          resolve();
        },
      );
    });
  }
}

let loginShellPath: string | undefined | null = null;

/**
 * A desktop app started from a dock or launcher does not inherit the PATH of the user's shell, where
 * plugins such as aws, gcloud or kubelogin live: ask the login shell once, and keep ours after it.
 */
export function pluginPath(env: NodeJS.ProcessEnv = process.env): string {
  if (loginShellPath === null) {
    loginShellPath = undefined;
    const shell = env.SHELL;
    if (shell && process.platform !== 'win32') {
      try {
        loginShellPath =
          execFileSync(shell, ['-ilc', 'printf %s "$PATH"'], {
            timeout: 3_000,
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'ignore'],
          }).trim() || undefined;
      } catch {
        loginShellPath = undefined;
      }
    }
  }
  const parts = [...(loginShellPath ?? '').split(delimiter), ...(env.PATH ?? '').split(delimiter)].filter(Boolean);
  return [...new Set(parts)].join(delimiter);
}
