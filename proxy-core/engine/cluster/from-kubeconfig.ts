// From a kubeconfig to the servers the core routes between: the kubeconfig's credentials, TLS settings
// and proxy, applied to every apiserver found in the cluster, each contacted at its own address with
// the TLS server name of the kubeconfig's server (its certificate names that, not the IP). The same
// search runs again on a period (ServerSource): new servers join, servers that left are called gone.
import { PeerscopeError } from '../../contract/errors.js';
import { X509Certificate } from 'node:crypto';
import { proxyFor, ProxyConfigError, redactProxy } from '../upstream/proxy-config.js';
import { AgentServerReader } from './server-reader.js';
import { bearerSourceFor, CredentialError, type BearerSource } from './credentials.js';
import { findApiservers, type FindResult, type FoundServer } from './find-servers.js';
import { checkAnswering, fallbackApplies, fallbackWarning } from './kubeconfig-fallback.js';
import { loadKubeconfig, type LoadOptions, type ResolvedKubeconfig } from './kubeconfig.js';
import type { KnownServer, ServerConfig, ServerReader, ServerSource, ServerUpdate } from './server-config.js';

export interface ClusterServers {
  readonly kubeconfig: ResolvedKubeconfig;
  readonly servers: ServerConfig[];
  readonly found: FoundServer[];
  /** Servers whose lease expired while their address left the endpoints: gone from the cluster. */
  readonly gone: { readonly name: string; readonly url: string; readonly reason: string; readonly hostname?: string }[];
  readonly warnings: string[];
  /** What the operator may like to know (e.g. the proxy in use, without its credentials). */
  readonly notes: string[];
  readonly credentials: BearerSource;
  /** Finds the servers again: give it to createCore({ serverSource }) for the periodic refresh. */
  readonly source: ServerSource;
}

export interface FromKubeconfigOptions extends LoadOptions {
  /** --server NAME=URL: added, or replacing a found server of that name; never judged gone. */
  readonly overrides?: readonly { name: string; url: string }[];
}

/** The one-off check of the advertised addresses at start: whole read, and its connection (TCP + TLS). */
const FALLBACK_CHECK_TIMEOUT_MS = 4_000;
const FALLBACK_CONNECT_TIMEOUT_MS = 2_000;

export async function serversFromKubeconfig(options: FromKubeconfigOptions): Promise<ClusterServers> {
  const kubeconfig = loadKubeconfig(options);
  const env = options.env ?? process.env;
  if (kubeconfig.tls.insecureSkipVerify) {
    throw new PeerscopeError(
      'PEERSCOPE_ERR_KUBECONFIG',
      `${kubeconfig.files.join(', ')}: cluster "${kubeconfig.clusterName}" sets insecure-skip-tls-verify; Peerscope always verifies apiserver certificates: give the cluster's certificate-authority instead`,
    );
  }
  const credentials = bearerSourceFor(kubeconfig, env);
  await credentials.refresh();
  const notes: string[] = [];
  const configs = serverConfigs(kubeconfig, credentials, env, notes, options.overrides ?? []);
  const find = finder(kubeconfig, credentials, configs);

  const first = await find([]);
  refuseFirstAnswer(first, kubeconfig);
  const warnings = [...first.warnings];
  const firstServers = first.servers.map(configs.of);
  if (fallbackApplies(kubeconfig.server, first.servers)) {
    const check = await checkAnswering(
      firstServers,
      (s) => new AgentServerReader(s, FALLBACK_CHECK_TIMEOUT_MS, FALLBACK_CONNECT_TIMEOUT_MS),
    );
    if (check.answering.length === 0) {
      firstServers.push(configs.fallback());
      warnings.push(fallbackWarning(kubeconfig.server, check.unreachable));
    }
  }
  return {
    kubeconfig,
    servers: configs.withOverrides(firstServers),
    found: first.servers,
    gone: [...first.expired].map(([name, g]) => ({ name, ...g })),
    warnings,
    notes,
    credentials,
    source: refreshingSource(kubeconfig, find, configs),
  };
}

/** How the servers' configs are made: the kubeconfig's TLS, credentials and proxy, at each server's address. */
interface ServerConfigs {
  base(name: string, url: string, source: ServerConfig['source'], hostname?: string): ServerConfig;
  of(found: FoundServer): ServerConfig;
  /** The kubeconfig's server, standing in while no advertised address answers (kubeconfig-fallback.ts). */
  fallback(): ServerConfig;
  /** The --server flags' servers. */
  overrides(): ServerConfig[];
  /** `servers` with the --server flags' servers added, or in place of a found server of their name. */
  withOverrides(servers: ServerConfig[]): ServerConfig[];
}

/** The proxy in use is told once in `notes` (without its credentials). */
function serverConfigs(
  kubeconfig: ResolvedKubeconfig,
  credentials: BearerSource,
  env: NodeJS.ProcessEnv,
  notes: string[],
  overrideFlags: readonly { name: string; url: string }[],
): ServerConfigs {
  const hostname = new URL(kubeconfig.server).hostname;
  const servername = kubeconfig.tls.servername ?? (/^[\d.]+$|:/.test(hostname) ? undefined : hostname);
  const shownProxies = new Set<string>();
  const proxyOf = (url: string): string | undefined => {
    let proxy: URL | undefined;
    try {
      proxy = proxyFor(url, { ...(kubeconfig.proxyUrl ? { proxyUrl: kubeconfig.proxyUrl } : {}), env });
    } catch (err) {
      if (err instanceof ProxyConfigError) throw new ProxyConfigError(`${err.message} (from the environment)`);
      throw err;
    }
    if (proxy && !shownProxies.has(proxy.href)) {
      shownProxies.add(proxy.href);
      notes.push(
        `connecting through the proxy ${redactProxy(proxy)} (${kubeconfig.proxyUrl ? "the kubeconfig's proxy-url" : 'HTTPS_PROXY / HTTP_PROXY'})`,
      );
    }
    return proxy?.href;
  };
  const base = (name: string, url: string, source: ServerConfig['source'], hostname?: string): ServerConfig => {
    const proxy = proxyOf(url);
    // An exec plugin may hand out a client certificate instead of (or with) a token; a refresh of the
    // server list picks up a rotated one (new connections for the servers whose certificate changed).
    const clientCert = kubeconfig.clientCert ?? credentials.clientCert();
    return {
      name,
      ...(hostname ? { hostname } : {}),
      url,
      source,
      ...(kubeconfig.tls.ca ? { ca: kubeconfig.tls.ca } : {}),
      ...(servername ? { servername } : {}),
      ...(clientCert ? { clientCert } : {}),
      ...(proxy ? { proxy } : {}),
      bearerToken: () => credentials.token(),
      onUnauthorized: () => credentials.unauthorized(),
    };
  };
  const overrides = () => overrideFlags.map((o) => base(o.name, o.url, 'flag'));
  return {
    base,
    of: (f) => base(f.name, f.url, f.source, f.lease?.hostname),
    // Named as find-servers names it when it finds nothing else.
    fallback: () => base(new URL(kubeconfig.server).host, kubeconfig.server, 'kubeconfig'),
    overrides,
    withOverrides(servers) {
      for (const s of overrides()) {
        // --server NAME= overrides a found server by its identity (lease name) or its host name; the
        // identity and host name stay the found server's, so every screen and key still names it so.
        const i = servers.findIndex((x) => x.name === s.name || (x.hostname !== undefined && x.hostname === s.name));
        const found = servers[i];
        if (found) servers[i] = { ...s, name: found.name, ...(found.hostname ? { hostname: found.hostname } : {}) };
        else servers.push(s);
      }
      return servers;
    },
  };
}

type Find = (readers: readonly ServerReader[]) => Promise<FindResult>;

/** A search of the cluster's apiservers; the kubeconfig's own server is asked first, with a client of its own that lives for one search. */
function finder(kubeconfig: ResolvedKubeconfig, credentials: BearerSource, configs: ServerConfigs): Find {
  return async (readers) => {
    const probe = new AgentServerReader(configs.base('kubeconfig', kubeconfig.server, 'kubeconfig'));
    try {
      let result = await findApiservers([probe, ...readers], kubeconfig.server);
      if (result.unauthorized && kubeconfig.credential.kind === 'exec') {
        // client-go runs the plugin again after a 401: the cached credential may have been revoked.
        credentials.unauthorized();
        await credentials.refresh();
        result = await findApiservers([probe, ...readers], kubeconfig.server);
      }
      return result;
    } finally {
      await probe.close();
    }
  };
}

/** The first search is refused with the credentials, or trusts no server it found: an error that says which. */
function refuseFirstAnswer(first: FindResult, kubeconfig: ResolvedKubeconfig): void {
  if (first.unauthorized) {
    throw new CredentialError(
      `${first.unauthorized}: the cluster refused the credentials of user "${kubeconfig.userName || '(none)'}" of context "${kubeconfig.contextName}" (${describeCredential(kubeconfig)})`,
    );
  }
  if (first.untrusted && first.servers.every((s) => s.source === 'kubeconfig')) {
    throw new PeerscopeError(
      'PEERSCOPE_ERR_KUBECONFIG',
      `${first.untrusted}: Peerscope always verifies apiserver certificates; give cluster "${kubeconfig.clusterName}" the CA that signed them (certificate-authority in ${kubeconfig.files.join(', ')})`,
    );
  }
}

/** The same search on a period: new servers join, servers that left are called gone (and why). */
function refreshingSource(kubeconfig: ResolvedKubeconfig, find: Find, configs: ServerConfigs): ServerSource {
  return {
    async refresh(known: readonly KnownServer[]): Promise<ServerUpdate> {
      const readers = known.filter((k) => k.ready && k.reader).map((k) => k.reader as ServerReader);
      const r = await find(readers);
      if (r.unauthorized) {
        return {
          servers: configs.overrides(),
          gone: new Map(),
          warnings: [
            `${r.unauthorized}: the credentials of user "${kubeconfig.userName}" are refused now; the server list is kept as it was`,
          ],
        };
      }
      if (!r.read.leases && !r.read.endpoints) return { servers: configs.overrides(), gone: new Map(), warnings: r.warnings };
      const found = r.servers.map(configs.of);
      // While no advertised server answers (none of those known is ready), the kubeconfig's server stays.
      const advertisedReady = known.some((k) => k.ready && (k.config.source === 'lease' || k.config.source === 'endpoints'));
      if (fallbackApplies(kubeconfig.server, r.servers) && !advertisedReady) found.push(configs.fallback());
      const servers = configs.withOverrides(found);
      const current = new Set(servers.map((s) => s.name));
      const gone = new Map<string, string>();
      for (const k of known) {
        if (current.has(k.config.name)) continue;
        const reason = goneReason(k, r, kubeconfig.server);
        if (reason !== undefined) gone.set(k.config.name, reason);
      }
      return { servers, gone, warnings: r.warnings };
    },
    close: async () => undefined,
  };
}

/** Why a known server the search no longer finds is gone; undefined: it is not judged gone. */
function goneReason(k: KnownServer, r: FindResult, kubeconfigServer: string): string | undefined {
  const name = k.config.name;
  switch (k.config.source) {
    case 'lease':
      return r.read.leases ? (r.expired.get(name)?.reason ?? 'no identity lease in kube-system names it any more') : undefined;
    case 'endpoints':
      return r.read.endpoints ? `its address ${name} left the default/kubernetes endpoints` : undefined;
    case 'kubeconfig':
      if (r.servers.every((s) => s.source === 'kubeconfig')) return undefined;
      return r.servers.some((s) => s.source !== 'kubeconfig') && fallbackApplies(kubeconfigServer, r.servers)
        ? 'an apiserver address the cluster advertises answers from here now'
        : "the cluster's apiservers were found from the leases and endpoints";
    default:
      // --server flags and other sources are the operator's: never judged gone.
      return undefined;
  }
}

/** What the kubeconfig offered, for the error that says it was refused: never the secret itself. */
function describeCredential(k: ResolvedKubeconfig): string {
  const parts: string[] = [];
  if (k.clientCert) {
    let subject = '';
    try {
      subject = ` ${new X509Certificate(k.clientCert.cert).subject.replace(/\n/g, ', ')}`;
    } catch {
      // An unparsable certificate is still "a client certificate".
    }
    parts.push(`a client certificate${subject}`);
  }
  const c = k.credential;
  if (c.kind === 'token') parts.push('a bearer token');
  if (c.kind === 'tokenFile') parts.push(`the token in ${c.path}`);
  if (c.kind === 'exec') parts.push(`a token from the exec plugin "${c.exec.command}"`);
  return parts.length ? `it offered ${parts.join(' and ')}` : 'the kubeconfig gives this user no token, client certificate or exec plugin';
}
