// One simulated kube-apiserver: an http(s) listener on loopback serving one release from the shared
// store, with the life cycle a rollout drives (start, drain, stop, start again at another release).
import { randomUUID } from 'node:crypto';
import http, { STATUS_CODES } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { ReleaseCatalog } from '../../engine/releases/index.js';
import type { ObjectStore } from '../store/store.js';
import { statusBody } from '../../engine/util/status.js';
import { authenticate, unauthorized, type SimAuthConfig, type SimUser } from './auth.js';
import type { SimAuditLog } from './audit-log.js';
import type { SimServer, SimServerInfo, SimServerState } from '../types.js';
import { servedIndex, type ApiContext } from './context.js';
import { IDENTITY_LEASE_DURATION_SECONDS, identityLeaseName, writeIdentityLease } from './identity.js';
import { routeRequest } from './router.js';
import { handleUpgrade } from './upgrade.js';

export const LEASE_RENEW_INTERVAL_MS = 10_000;

export interface SimRequestRecord {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string | string[] | undefined>;
  /** Who the request authenticated as (HTTPS mode), by token or client certificate. */
  readonly user?: SimUser;
}

export interface SimApiServerOptions {
  readonly name: string;
  readonly release: ReleaseCatalog;
  readonly store: ObjectStore;
  readonly host: string;
  /** 0 = a free port on the first start, kept for later starts. */
  readonly port: number;
  /** Serving certificate and key (PEM); plain HTTP without. */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Bearer token every request but /version and health must carry (HTTPS mode). */
  readonly token?: string;
  /**
   * CA (PEM) whose client certificates authenticate a request as well as the token does (HTTPS
   * mode): user = the certificate's CN, groups = its O values, as kube-apiserver's --client-ca-file.
   */
  readonly clientCa?: string;
  /** Host written into the identity lease and the URL (default: `host`), e.g. an address only a proxy reaches. */
  readonly advertiseHost?: string;
  /** Identity lease duration (default 3600 s, as kube-apiserver); renewed every 10 s or a quarter of it. */
  readonly leaseDurationSeconds?: number;
  readonly onStateChange?: (server: SimApiServer, state: SimServerState) => void;
  readonly onRequest?: (server: string, req: SimRequestRecord) => void;
  /** Where the server logs each request it answers as an audit event (off when absent). */
  readonly auditLog?: SimAuditLog;
}

export class SimApiServer implements SimServer {
  readonly name: string;
  private current: ReleaseCatalog;
  private port: number;
  private state: SimServerState = 'stopped';
  private listener: http.Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly longRunning = new Set<() => void>();
  private renewTimer: NodeJS.Timeout | undefined;
  private holderIdentity = '';
  /** The UID of its loopback client's user for this start (audit log only). */
  private loopbackUid = '';
  private apiContext: ApiContext | undefined;

  constructor(private readonly options: SimApiServerOptions) {
    this.name = options.name;
    this.current = options.release;
    this.port = options.port;
  }

  info(): SimServerInfo {
    const scheme = this.options.tls ? 'https' : 'http';
    return {
      name: this.name,
      url: `${scheme}://${this.advertisedHost}:${this.port}`,
      release: this.current.release,
      gitVersion: this.current.gitVersion,
      state: this.state,
    };
  }

  release(): ReleaseCatalog {
    return this.current;
  }

  private get advertisedHost(): string {
    const h = this.options.advertiseHost ?? this.options.host;
    return h.includes(':') ? `[${h}]` : h;
  }

  private get auth(): SimAuthConfig | undefined {
    if (!this.options.tls) return undefined;
    return { ...(this.options.token !== undefined ? { token: this.options.token } : {}), clientCerts: this.options.clientCa !== undefined };
  }

  /** The port it listens on (0 before the first start with a free port). */
  get listenPort(): number {
    return this.port;
  }

  get currentState(): SimServerState {
    return this.state;
  }

  get identityHolder(): string {
    return this.holderIdentity;
  }

  setRelease(release: ReleaseCatalog): void {
    // A running server keeps its release until it restarts; a stopped one takes it at once.
    this.pendingRelease = release;
    if (!this.listener) this.current = release;
  }
  private pendingRelease: ReleaseCatalog | undefined;

  async start(): Promise<void> {
    if (this.listener) return;
    if (this.pendingRelease) this.current = this.pendingRelease;
    this.pendingRelease = undefined;
    this.setState('starting');
    // The context is built once the port is known; no request arrives before listen() completes.
    const auth = this.auth;
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
      res.setHeader('X-Simulated-Apiserver', this.name);
      const auditID = randomUUID();
      res.setHeader('Audit-Id', auditID);
      if (this.state === 'draining') res.setHeader('Connection', 'close');
      const result = authenticate(req, pathOf(req.url), auth);
      this.options.auditLog?.track(req, res, result.ok ? result.user : undefined, auditID, this.current);
      this.options.onRequest?.(this.name, {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: { ...req.headers },
        ...(result.ok && result.user ? { user: result.user } : {}),
      });
      if (!result.ok) {
        req.resume();
        const body = statusBody(unauthorized());
        res.writeHead(401, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
        return;
      }
      // Authenticated above: the router has nothing left to check.
      void routeRequest(this.apiContext as ApiContext, undefined, req, res);
    };
    const tls = this.options.tls;
    const server = tls
      ? https.createServer(
          {
            cert: tls.cert,
            key: tls.key,
            // Ask for a client certificate, verify it against the cluster CA, and let a client without
            // one through to the token check: an unauthenticated request gets a 401 Status, not a TLS alert.
            ...(this.options.clientCa ? { requestCert: true, rejectUnauthorized: false, ca: this.options.clientCa } : {}),
          },
          handler,
        )
      : http.createServer(handler);
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('upgrade', (req: http.IncomingMessage, socket: Socket, head: Buffer) => {
      const result = authenticate(req, pathOf(req.url), auth);
      this.options.onRequest?.(this.name, {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: { ...req.headers },
        ...(result.ok && result.user ? { user: result.user } : {}),
      });
      if (!result.ok) {
        socket.on('error', () => socket.destroy());
        const body = statusBody(unauthorized());
        socket.end(
          `HTTP/1.1 401 ${STATUS_CODES[401]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Simulated-Apiserver: ${this.name}\r\nConnection: close\r\n\r\n${body}`,
        );
        return;
      }
      handleUpgrade(this.apiContext as ApiContext, undefined, req, socket, head);
    });
    server.on('clientError', (_err, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.listener = server;
    this.port = (server.address() as AddressInfo).port;
    this.apiContext = this.context();
    this.holderIdentity = `apiserver-${this.name}_${randomUUID()}`;
    this.loopbackUid = randomUUID();
    this.publishLease(true);
    this.renewTimer = setInterval(() => this.publishLease(false), Math.min(LEASE_RENEW_INTERVAL_MS, this.leaseDurationSeconds * 250));
    this.renewTimer.unref();
    this.setState('ready');
  }

  async drain(graceMs: number): Promise<void> {
    if (this.state !== 'ready') return;
    this.setState('draining');
    this.endLongRunning();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, graceMs)));
    const server = this.listener;
    // stop() may have run meanwhile.
    if (server && this.listener === server) {
      // Refuse new connections; requests already in flight finish on theirs.
      server.close();
      server.closeIdleConnections();
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
    this.endLongRunning();
    const server = this.listener;
    this.listener = undefined;
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of this.sockets) socket.destroy();
      this.sockets.clear();
      await closed;
    }
    if (this.state !== 'stopped') this.setState('down');
  }

  private context(): ApiContext {
    const release = this.current;
    return {
      serverName: this.name,
      release,
      served: servedIndex(release),
      store: this.options.store,
      serverAddress: `${this.options.host}:${this.port}`,
      isDraining: () => this.state === 'draining',
      longRunning: this.longRunning,
    };
  }

  private endLongRunning(): void {
    for (const end of [...this.longRunning]) end();
    this.longRunning.clear();
  }

  private get leaseDurationSeconds(): number {
    return this.options.leaseDurationSeconds ?? IDENTITY_LEASE_DURATION_SECONDS;
  }

  private publishLease(acquired: boolean): void {
    if (!servedIndex(this.current).anyVersion('coordination.k8s.io', 'leases')) return;
    try {
      const verb = writeIdentityLease(
        this.options.store,
        {
          serverName: this.name,
          holderIdentity: this.holderIdentity,
          host: this.advertisedHost,
          port: this.port,
          leaseDurationSeconds: this.leaseDurationSeconds,
        },
        acquired,
      );
      // Its loopback client's write, in its own audit log: a few a minute, as a real server's lease renewals.
      this.options.auditLog?.ownLeaseWrite({
        verb,
        lease: identityLeaseName(this.name),
        gitVersion: this.current.gitVersion,
        sourceIP: this.options.host,
        loopbackUid: this.loopbackUid,
      });
    } catch {
      // A lease write racing a client's delete is retried at the next renewal.
    }
  }

  private setState(state: SimServerState): void {
    this.state = state;
    this.options.onStateChange?.(this, state);
  }
}

function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  return q < 0 ? raw : raw.slice(0, q);
}
