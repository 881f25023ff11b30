// How the core reaches one apiserver directly. Credentials live here and nowhere else: nothing of
// this type is ever serialised into the contract, telemetry, logs or snapshots.
export interface ServerConfig {
  /** Unique name: the server's identity in routing, snapshots and metrics (and the server ID for the visit order of discovery merges). */
  readonly name: string;
  /** The host name its identity lease gives (kubernetes.io/hostname): what a person reads (display-names.ts). */
  readonly hostname?: string;
  /** Base URL, http:// or https://host:port. */
  readonly url: string;
  /** PEM CA bundle that verifies the server (TLS is always verified). */
  readonly ca?: string;
  /** TLS server name when it differs from the URL host (kubeconfig tls-server-name). */
  readonly servername?: string;
  /** Client certificate for mutual TLS. */
  readonly clientCert?: { readonly cert: string; readonly key: string };
  /**
   * HTTP CONNECT proxy every connection to the server goes through (kubeconfig proxy-url, or
   * HTTPS_PROXY / NO_PROXY); its userinfo is a credential too. Absent: direct connections.
   */
  readonly proxy?: string;
  /** Bearer token for the core's own reads, and for client requests that bring none. */
  readonly bearerToken?: () => string | undefined;
  /** The server answered 401 to the core's own read with that token: fetch a fresh one (exec plugin, token file). */
  readonly onUnauthorized?: () => void;
  /** How the server was found, for display. */
  readonly source?: 'flag' | 'kubeconfig' | 'lease' | 'endpoints' | 'sim';
}

/** The parts of a ServerConfig that may be shown or serialised. */
export interface ServerPublicInfo {
  readonly name: string;
  readonly url: string;
  readonly source: NonNullable<ServerConfig['source']>;
}

export function publicInfo(s: ServerConfig): ServerPublicInfo {
  return { name: s.name, url: s.url, source: s.source ?? 'flag' };
}

/** A reader of one server: its GETs (AgentServerReader is one). */
export interface ServerReader {
  readonly server: ServerConfig;
  get(path: string, headers?: Record<string, string>): Promise<{ readonly status: number; readonly body: string }>;
  /** A readiness read on a new connection (server-reader.ts); readers without one probe with get(). */
  probe?(path: string): Promise<{ readonly status: number; readonly body: string }>;
  /** A GET whose body is kept as bytes (a protobuf document); readers without one cannot read those. */
  getBytes?(
    path: string,
    headers?: Record<string, string>,
  ): Promise<{ readonly status: number; readonly headers: Record<string, string | string[] | undefined>; readonly body: Buffer }>;
}

/** A server the core routes to now, as a refresh of the server list sees it. */
export interface KnownServer {
  readonly config: ServerConfig;
  /** The core's own reader of it: asked for the leases when the kubeconfig's server does not answer. */
  readonly reader?: ServerReader;
  readonly ready: boolean;
}

/** One refresh of the server list. */
export interface ServerUpdate {
  /** Servers found now (new ones are added; known ones keep their state). */
  readonly servers: readonly ServerConfig[];
  /** Known servers that left the cluster, with why (shown as gone). A known server in neither list is kept as it is. */
  readonly gone: ReadonlyMap<string, string>;
  /** What the operator should know (RBAC, unreadable lists); never credentials. */
  readonly warnings: readonly string[];
}

/** Where a core finds its servers again on a period (a kubeconfig's cluster). */
export interface ServerSource {
  refresh(known: readonly KnownServer[]): Promise<ServerUpdate>;
  close(): Promise<void>;
}
