// kubeconfig, as kubectl reads it: --kubeconfig FILE, else the KUBECONFIG path list merged by
// kubectl's rules (the first file to set a name or current-context wins; kubeconfig-read.ts), else
// ~/.kube/config; --context NAME, else current-context. Every error names the file and the line or
// field at fault.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { parseProxyUrl, ProxyConfigError } from '../upstream/proxy-config.js';
import { KubeconfigError } from '../util/input-error.js';
import {
  at,
  readKubeconfigs,
  type Entry,
  type ExecConfig,
  type MergedKubeconfig,
  type NamedCluster,
  type NamedContext,
  type NamedUser,
} from './kubeconfig-read.js';
import { caBundleProblem, keyPairProblem } from './pem.js';
import { errnoWords } from '../util/errno.js';

export type { ExecConfig } from './kubeconfig-read.js';

export interface ResolvedKubeconfig {
  readonly files: readonly string[];
  readonly contextName: string;
  readonly clusterName: string;
  readonly userName: string;
  readonly namespace?: string;
  readonly server: string;
  readonly tls: {
    readonly ca?: string;
    readonly servername?: string;
    /** Set only when the kubeconfig asks for it; Peerscope then warns loudly. */
    readonly insecureSkipVerify: boolean;
  };
  readonly clientCert?: { readonly cert: string; readonly key: string };
  readonly credential:
    | { readonly kind: 'none' }
    | { readonly kind: 'token'; readonly token: string }
    | { readonly kind: 'tokenFile'; readonly path: string }
    | { readonly kind: 'basic'; readonly username: string; readonly password: string }
    | { readonly kind: 'exec'; readonly exec: ExecConfig; readonly baseDir: string };
  readonly proxyUrl?: string;
}

export interface LoadOptions {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly home?: string;
}

/** The kubeconfig files kubectl would read, in precedence order. */
export function kubeconfigFiles(options: LoadOptions = {}): string[] {
  if (options.kubeconfig) return [resolve(options.kubeconfig)];
  const env = options.env ?? process.env;
  if (env.KUBECONFIG) {
    const seen = new Set<string>();
    return env.KUBECONFIG.split(delimiter)
      .filter((p) => p && !seen.has(p) && seen.add(p))
      .map((p) => resolve(p));
  }
  return [join(options.home ?? homedir(), '.kube', 'config')];
}

export function loadKubeconfig(options: LoadOptions = {}): ResolvedKubeconfig {
  const merged = readKubeconfigs(kubeconfigFiles(options), Boolean(options.kubeconfig));
  const { contextName, ctx, cluster, user, userName } = chosenContext(merged, options.context);
  const c = cluster.value.cluster;
  const ca = clusterCa(cluster);
  const clientCert = user ? clientCertOf(user) : undefined;
  const credential = credentialOf(user);
  const server = serverOf(cluster);
  return {
    files: merged.read,
    contextName,
    clusterName: cluster.value.name,
    userName,
    ...(ctx.value.context.namespace ? { namespace: ctx.value.context.namespace } : {}),
    server: server.origin,
    tls: {
      ...(ca ? { ca } : {}),
      ...(c['tls-server-name'] ? { servername: c['tls-server-name'] } : {}),
      insecureSkipVerify: c['insecure-skip-tls-verify'] === true,
    },
    ...(clientCert ? { clientCert } : {}),
    credential,
    ...(c['proxy-url'] ? { proxyUrl: c['proxy-url'] } : {}),
  };
}

/** The context to use (--context, else current-context) and the cluster and user it names, all defined. */
function chosenContext(
  merged: MergedKubeconfig,
  asked: string | undefined,
): { contextName: string; ctx: Entry<NamedContext>; cluster: Entry<NamedCluster>; user: Entry<NamedUser> | undefined; userName: string } {
  const { read, contexts, current } = merged;
  const where = read.length === 1 ? read[0]! : read.join(delimiter);
  const contextName = asked ?? current?.name;
  if (!contextName) throw new KubeconfigError(where, 'no context: the kubeconfig sets no current-context; pass --context NAME');
  const ctx = contexts.get(contextName);
  if (!ctx) {
    const known = [...contexts.keys()];
    throw new KubeconfigError(
      asked ? '--context' : (current?.file ?? where),
      `context "${contextName}" is not defined${known.length ? `; the kubeconfig has ${known.join(', ')}` : ''}`,
    );
  }
  const cluster = merged.clusters.get(ctx.value.context.cluster);
  if (!cluster) {
    throw new KubeconfigError(
      ctx.file,
      `context "${contextName}" names cluster "${ctx.value.context.cluster}", which is not defined`,
      at(ctx, ['context', 'cluster']),
    );
  }
  const userName = ctx.value.context.user ?? '';
  const user = userName ? merged.users.get(userName) : undefined;
  if (userName && !user)
    throw new KubeconfigError(
      ctx.file,
      `context "${contextName}" names user "${userName}", which is not defined`,
      at(ctx, ['context', 'user']),
    );
  return { contextName, ctx, cluster, user, userName };
}

/** The cluster's CA bundle (inline or a file beside the kubeconfig), checked to hold certificates. */
function clusterCa(cluster: Entry<NamedCluster>): string | undefined {
  const c = cluster.value.cluster;
  const ca = c['certificate-authority-data']
    ? decodeBase64(c['certificate-authority-data'], cluster, ['cluster', 'certificate-authority-data'])
    : c['certificate-authority']
      ? readRelative(c['certificate-authority'], dirname(cluster.file), cluster, ['cluster', 'certificate-authority'])
      : undefined;
  if (ca !== undefined) {
    const field = c['certificate-authority-data'] ? 'certificate-authority-data' : 'certificate-authority';
    const problem = caBundleProblem(ca);
    if (problem)
      throw new KubeconfigError(cluster.file, `cluster "${cluster.value.name}": ${field} ${problem}`, at(cluster, ['cluster', field]));
  }
  return ca;
}

/** The user's client certificate and key (inline or files beside the kubeconfig), checked to be a pair. */
function clientCertOf(user: Entry<NamedUser>): ResolvedKubeconfig['clientCert'] {
  const u = user.value.user ?? {};
  if (!u['client-certificate'] && !u['client-certificate-data']) return undefined;
  const userName = user.value.name;
  const ubase = dirname(user.file);
  const certField = u['client-certificate-data'] ? 'client-certificate-data' : 'client-certificate';
  const keyField = u['client-key-data'] ? 'client-key-data' : 'client-key';
  const cert = u['client-certificate-data']
    ? decodeBase64(u['client-certificate-data'], user, ['user', certField])
    : readRelative(u['client-certificate']!, ubase, user, ['user', certField]);
  const keyText = u['client-key-data']
    ? decodeBase64(u['client-key-data'], user, ['user', keyField])
    : u['client-key']
      ? readRelative(u['client-key'], ubase, user, ['user', keyField])
      : undefined;
  if (!keyText) throw new KubeconfigError(user.file, `user "${userName}" has a client certificate but no client-key`, at(user, ['user']));
  const mismatch = keyPairProblem(cert, keyText);
  if (mismatch) {
    const field = mismatch.in === 'cert' ? certField : keyField;
    throw new KubeconfigError(user.file, `user "${userName}": ${field} ${mismatch.problem}`, at(user, ['user', field]));
  }
  return { cert, key: keyText };
}

/** The user's credential, in kubectl's order: exec plugin, token, token file, basic; none without a user. */
function credentialOf(user: Entry<NamedUser> | undefined): ResolvedKubeconfig['credential'] {
  const u = user?.value.user ?? {};
  if (user && u['auth-provider']) {
    throw new KubeconfigError(
      user.file,
      `user "${user.value.name}" uses auth-provider "${u['auth-provider'].name}", which Peerscope does not support (kubectl dropped it too); use an exec credential plugin`,
      at(user, ['user', 'auth-provider']),
    );
  }
  if (u.exec) return { kind: 'exec', exec: u.exec, baseDir: dirname(user!.file) };
  if (u.token) return { kind: 'token', token: u.token };
  if (u.tokenFile) return { kind: 'tokenFile', path: isAbsolute(u.tokenFile) ? u.tokenFile : resolve(dirname(user!.file), u.tokenFile) };
  if (u.username && u.password) return { kind: 'basic', username: u.username, password: u.password };
  return { kind: 'none' };
}

/** The cluster's server as a URL, and its proxy-url checked as kubectl reads it. */
function serverOf(cluster: Entry<NamedCluster>): URL {
  const c = cluster.value.cluster;
  let server: URL;
  try {
    server = new URL(c.server);
  } catch {
    throw new KubeconfigError(
      cluster.file,
      `cluster "${cluster.value.name}" has server "${c.server}", which is not a URL`,
      at(cluster, ['cluster', 'server']),
    );
  }
  if (c['proxy-url']) {
    try {
      parseProxyUrl(c['proxy-url'], 'proxy-url');
    } catch (err) {
      if (!(err instanceof ProxyConfigError)) throw err;
      throw new KubeconfigError(cluster.file, `cluster "${cluster.value.name}": ${err.message}`, at(cluster, ['cluster', 'proxy-url']));
    }
  }
  return server;
}

function decodeBase64(data: string, entry: Entry<unknown>, sub: readonly PropertyKey[]): string {
  const clean = data.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 !== 0) {
    throw new KubeconfigError(entry.file, `${String(sub[sub.length - 1])} is not valid base64`, at(entry, sub));
  }
  return Buffer.from(clean, 'base64').toString('utf8');
}

function readRelative(path: string, baseDir: string, entry: Entry<unknown>, sub: readonly PropertyKey[]): string {
  const full = isAbsolute(path) ? path : resolve(baseDir, path);
  try {
    return readFileSync(full, 'utf8');
  } catch (err) {
    throw new KubeconfigError(entry.file, `${String(sub[sub.length - 1])} ${full}: cannot read: ${errnoWords(err)}`, at(entry, sub));
  }
}
