// Reading kubeconfig files as kubectl merges them: each file parsed as YAML (keeping line numbers for
// errors) and checked against the schema below; the first file to set a cluster, user or context name,
// or current-context, wins. What the chosen context resolves to is kubeconfig.ts's.
import { readFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { KubeconfigError, jsonPointer } from '../util/input-error.js';
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

export type NamedCluster = z.infer<typeof namedCluster>;
export type NamedUser = z.infer<typeof namedUser>;
export type NamedContext = z.infer<typeof namedContext>;

/** One named cluster, user or context, with the file that set it and where, for errors. */
export interface Entry<T> {
  readonly value: T;
  readonly file: string;
  readonly line: (path: readonly PropertyKey[]) => number | undefined;
  readonly path: readonly PropertyKey[];
}

/** The files read, merged: every name with its first entry, and the first current-context. */
export interface MergedKubeconfig {
  /** The files that exist and were read, in precedence order. */
  readonly read: readonly string[];
  readonly clusters: ReadonlyMap<string, Entry<NamedCluster>>;
  readonly users: ReadonlyMap<string, Entry<NamedUser>>;
  readonly contexts: ReadonlyMap<string, Entry<NamedContext>>;
  readonly current: { readonly name: string; readonly file: string } | undefined;
}

/**
 * Reads and merges `files` (precedence order). A missing file of a list is skipped, as kubectl does,
 * unless the file was given explicitly (--kubeconfig) or is the only one.
 */
export function readKubeconfigs(files: readonly string[], explicit: boolean): MergedKubeconfig {
  const clusters = new Map<string, Entry<NamedCluster>>();
  const users = new Map<string, Entry<NamedUser>>();
  const contexts = new Map<string, Entry<NamedContext>>();
  let current: MergedKubeconfig['current'];
  const read: string[] = [];
  for (const file of files) {
    const text = readText(file, !explicit && files.length > 1);
    if (text === undefined) continue;
    read.push(file);
    const { cfg, lineOf } = parseKubeconfig(file, text);
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
  return { read, clusters, users, contexts, current };
}

/** The file's text; undefined for a missing file that may be skipped. */
function readText(file: string, mayBeMissing: boolean): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && mayBeMissing) return undefined;
    throw new KubeconfigError(file, `cannot read the kubeconfig: ${errnoWords(err)}`);
  }
}

/** One file's YAML checked against the schema, and the line of any path in it. */
function parseKubeconfig(file: string, text: string): { cfg: z.infer<typeof kubeconfigSchema>; lineOf: Entry<unknown>['line'] } {
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
  const lineOf = (path: readonly PropertyKey[]) => lineIn(doc, lines, path);
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
  return { cfg: parsed.data, lineOf };
}

/** The line of the node at `path`, or of its nearest ancestor that has one. */
function lineIn(doc: Document, lines: LineCounter, path: readonly PropertyKey[]): number | undefined {
  for (let p = [...path]; p.length > 0; p = p.slice(0, -1)) {
    const node = doc.getIn(p as (string | number)[], true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return lines.linePos(node.range[0]).line;
  }
  return undefined;
}

/** Where in `entry`'s file the field `sub` is: its line, else its JSON pointer. */
export function at(entry: Entry<unknown>, sub: readonly PropertyKey[]): { line?: number; column?: number; pointer?: string } {
  const path = [...entry.path, ...sub];
  const line = entry.line(path);
  return line ? { line, column: 1 } : { pointer: jsonPointer(path) };
}
