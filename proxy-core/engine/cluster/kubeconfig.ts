// kubeconfig, as kubectl reads it: --kubeconfig FILE, else the KUBECONFIG path list merged by
// kubectl's rules (the first file to set a name or current-context wins), else ~/.kube/config;
// --context NAME, else current-context. Every error names the file and the line or field at fault.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { parseProxyUrl, ProxyConfigError } from '../upstream/proxy-config.js';
import { KubeconfigError, jsonPointer } from '../util/input-error.js';
import { caBundleProblem, keyPairProblem } from './pem.js';
import { errnoWords } from '../util/errno.js';

const namedCluster = z.object({
  name: z.string().min(1),
  cluster: z
    .object({
      server: z.string({ error: 'a cluster needs a server' }).min(1, 'a cluster needs a server'),
      'certificate-authority': z.string().optional(),
      'certificate-authority-data': z.string().optional(),
      'insecure-skip-tls-verify': z.boolean().optional(),
      'tls-server-name': z.string().optional(),
      'proxy-url': z.string().optional(),
    })
    .passthrough(),
});

const execConfig = z
  .object({
    apiVersion: z.enum(['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1']),
    command: z.string().min(1),
    args: z.array(z.string()).nullish(),
    env: z.array(z.object({ name: z.string(), value: z.string() })).nullish(),
    interactiveMode: z.enum(['Never', 'IfAvailable', 'Always']).optional(),
    installHint: z.string().optional(),
    provideClusterInfo: z.boolean().optional(),
  })
  .passthrough();

const namedUser = z.object({
  name: z.string().min(1),
  user: z
    .object({
      token: z.string().optional(),
      tokenFile: z.string().optional(),
      'client-certificate': z.string().optional(),
      'client-certificate-data': z.string().optional(),
      'client-key': z.string().optional(),
      'client-key-data': z.string().optional(),
      username: z.string().optional(),
      password: z.string().optional(),
      exec: execConfig.optional(),
      'auth-provider': z.object({ name: z.string() }).passthrough().optional(),
    })
    .passthrough()
    .nullish(),
});

const namedContext = z.object({
  name: z.string().min(1),
  context: z.object({ cluster: z.string().min(1), user: z.string().optional(), namespace: z.string().optional() }).passthrough(),
});

const kubeconfigSchema = z
  .object({
    'current-context': z.string().optional(),
    clusters: z.array(namedCluster).nullish(),
    users: z.array(namedUser).nullish(),
    contexts: z.array(namedContext).nullish(),
  })
  .passthrough();

export type ExecConfig = z.infer<typeof execConfig>;

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

interface Entry<T> {
  readonly value: T;
  readonly file: string;
  readonly line: (path: readonly PropertyKey[]) => number | undefined;
  readonly path: readonly PropertyKey[];
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
  const files = kubeconfigFiles(options);
  const explicit = Boolean(options.kubeconfig);
  const clusters = new Map<string, Entry<z.infer<typeof namedCluster>>>();
  const users = new Map<string, Entry<z.infer<typeof namedUser>>>();
  const contexts = new Map<string, Entry<z.infer<typeof namedContext>>>();
  let current: { name: string; file: string } | undefined;
  const read: string[] = [];

  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // kubectl skips missing files of a KUBECONFIG list, but not an explicit --kubeconfig.
      if (code === 'ENOENT' && !explicit && files.length > 1) continue;
      throw new KubeconfigError(file, `cannot read the kubeconfig: ${errnoWords(err)}`);
    }
    read.push(file);
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines });
    const yamlError = doc.errors[0];
    if (yamlError) {
      const pos = yamlError.linePos?.[0];
      throw new KubeconfigError(
        file,
        `not valid YAML: ${(yamlError.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')}`,
        pos ? { line: pos.line, column: pos.col } : {},
      );
    }
    const lineOf = (path: readonly PropertyKey[]) => {
      for (let p = [...path]; p.length > 0; p = p.slice(0, -1)) {
        const node = doc.getIn(p as (string | number)[], true) as { range?: [number, number, number] } | undefined;
        if (node?.range) return lines.linePos(node.range[0]).line;
      }
      return undefined;
    };
    const parsed = kubeconfigSchema.safeParse(doc.toJS() ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const line = lineOf(issue.path);
      throw new KubeconfigError(
        file,
        `${issue.message} (at ${jsonPointer(issue.path)})`,
        line ? { line, column: 1 } : { pointer: jsonPointer(issue.path) },
      );
    }
    const cfg = parsed.data;
    const add = <T extends { name: string }>(map: Map<string, Entry<T>>, list: T[] | null | undefined, key: string) =>
      (list ?? []).forEach((value, i) => {
        if (!map.has(value.name)) map.set(value.name, { value, file, line: lineOf, path: [key, i] });
      });
    add(clusters, cfg.clusters, 'clusters');
    add(users, cfg.users, 'users');
    add(contexts, cfg.contexts, 'contexts');
    if (!current && cfg['current-context']) current = { name: cfg['current-context'], file };
  }
  if (read.length === 0) throw new KubeconfigError(files.join(delimiter), 'no kubeconfig file exists');

  const where = read.length === 1 ? read[0]! : read.join(delimiter);
  const contextName = options.context ?? current?.name;
  if (!contextName) throw new KubeconfigError(where, 'no context: the kubeconfig sets no current-context; pass --context NAME');
  const ctx = contexts.get(contextName);
  if (!ctx) {
    const known = [...contexts.keys()];
    throw new KubeconfigError(
      options.context ? '--context' : (current?.file ?? where),
      `context "${contextName}" is not defined${known.length ? `; the kubeconfig has ${known.join(', ')}` : ''}`,
    );
  }
  const cluster = clusters.get(ctx.value.context.cluster);
  if (!cluster) {
    throw new KubeconfigError(
      ctx.file,
      `context "${contextName}" names cluster "${ctx.value.context.cluster}", which is not defined`,
      at(ctx, ['context', 'cluster']),
    );
  }
  const userName = ctx.value.context.user ?? '';
  const user = userName ? users.get(userName) : undefined;
  if (userName && !user)
    throw new KubeconfigError(
      ctx.file,
      `context "${contextName}" names user "${userName}", which is not defined`,
      at(ctx, ['context', 'user']),
    );

  const c = cluster.value.cluster;
  const baseDir = dirname(cluster.file);
  const ca = c['certificate-authority-data']
    ? decodeBase64(c['certificate-authority-data'], cluster, ['cluster', 'certificate-authority-data'])
    : c['certificate-authority']
      ? readRelative(c['certificate-authority'], baseDir, cluster, ['cluster', 'certificate-authority'])
      : undefined;
  if (ca !== undefined) {
    const field = c['certificate-authority-data'] ? 'certificate-authority-data' : 'certificate-authority';
    const problem = caBundleProblem(ca);
    if (problem)
      throw new KubeconfigError(cluster.file, `cluster "${cluster.value.name}": ${field} ${problem}`, at(cluster, ['cluster', field]));
  }
  const u = user?.value.user ?? {};
  let clientCert: ResolvedKubeconfig['clientCert'];
  if (user && (u['client-certificate'] || u['client-certificate-data'])) {
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
    clientCert = { cert, key: keyText };
  }
  if (user && u['auth-provider']) {
    throw new KubeconfigError(
      user.file,
      `user "${userName}" uses auth-provider "${u['auth-provider'].name}", which Peerscope does not support (kubectl dropped it too); use an exec credential plugin`,
      at(user, ['user', 'auth-provider']),
    );
  }
  let credential: ResolvedKubeconfig['credential'] = { kind: 'none' };
  if (u.exec) credential = { kind: 'exec', exec: u.exec, baseDir: dirname(user!.file) };
  else if (u.token) credential = { kind: 'token', token: u.token };
  else if (u.tokenFile)
    credential = { kind: 'tokenFile', path: isAbsolute(u.tokenFile) ? u.tokenFile : resolve(dirname(user!.file), u.tokenFile) };
  else if (u.username && u.password) credential = { kind: 'basic', username: u.username, password: u.password };

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
  return {
    files: read,
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

function at(entry: Entry<unknown>, sub: readonly PropertyKey[]): { line?: number; column?: number; pointer?: string } {
  const path = [...entry.path, ...sub];
  const line = entry.line(path);
  return line ? { line, column: 1 } : { pointer: jsonPointer(path) };
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
