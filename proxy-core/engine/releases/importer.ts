// The catalog importer: turns discovery documents (aggregated v2/v2beta1 `APIGroupDiscoveryList`
// of `/apis` or `/api`, or a legacy `APIResourceList` of `/api/v1`) into a release catalog.
// It is how the project's catalog was written (scripts/import-catalog.ts) and how an operator
// rehearses with their own cluster (`peerscope sim --release-file NAME=FILE`).
import { createHash } from 'node:crypto';
import type { ZodType } from 'zod';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import {
  apiGroupDiscoveryListSchema,
  apiResourceListSchema,
  type APIGroupDiscoveryList,
  type APIResourceList,
} from '../discovery/types.js';
import { InputError, fromZodError, parseJsonText } from '../util/input-error.js';
import { CATALOG_FORMAT, type CatalogGroup, type CatalogResource, type CatalogSubresource, type ReleaseCatalog } from './model.js';
import { errnoWords } from '../util/errno.js';

export interface DiscoveryInput {
  /** Name shown in errors and recorded as provenance. */
  readonly file: string;
  readonly text: string;
}

export function readDiscoveryInput(path: string): DiscoveryInput {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new InputError(path, `cannot read: ${errnoWords(err)}`);
  }
  return { file: path, text };
}

/** Builds a release catalog from one or more discovery documents of the same release. */
export function importRelease(release: string, inputs: readonly DiscoveryInput[]): ReleaseCatalog {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(release)) {
    throw new InputError('--release-file', `release name "${release}" must be letters, digits, ".", "_" and "-"`);
  }
  const groups = new Map<string, CatalogGroup>();
  for (const input of inputs) {
    const doc = parseJsonText(input.text, input.file);
    const kind = (doc as { kind?: unknown } | null)?.kind;
    if (kind === 'APIGroupDiscoveryList') addAggregated(groups, parseWith(apiGroupDiscoveryListSchema, doc, input.file));
    else if (kind === 'APIResourceList') addLegacy(groups, parseWith(apiResourceListSchema, doc, input.file), input.file);
    else {
      throw new InputError(
        input.file,
        `kind is ${JSON.stringify(kind)}; expected APIGroupDiscoveryList (from /apis or /api with the aggregated Accept header) or APIResourceList (from /api/v1)`,
        { pointer: '/kind' },
      );
    }
  }
  if (groups.size === 0) throw new InputError(inputs[0]?.file ?? release, 'the documents list no API groups');
  const { major, minor, gitVersion } = versionOf(release);
  // Core group first, as kube-apiserver serves /api before /apis.
  const ordered = [...groups.values()].sort((a, b) => (a.name === '' ? -1 : b.name === '' ? 1 : 0));
  return {
    format: CATALOG_FORMAT,
    release,
    gitVersion,
    major,
    minor,
    importedFrom: inputs.map((i) => ({ file: basename(i.file), sha256: sha256(i.text) })),
    groups: ordered,
  };
}

function parseWith<T>(schema: ZodType<T>, doc: unknown, file: string): T {
  const result = schema.safeParse(doc);
  if (!result.success) throw fromZodError(file, result.error);
  return result.data;
}

function addAggregated(groups: Map<string, CatalogGroup>, doc: APIGroupDiscoveryList): void {
  for (const item of doc.items) {
    const name = item.metadata?.name ?? '';
    const group = groupFor(groups, name);
    for (const v of item.versions) {
      const resources: CatalogResource[] = (v.resources ?? []).map((r) => {
        const kind = r.responseKind?.kind ?? '';
        const res: CatalogResource = {
          name: r.resource,
          kind,
          singular: r.singularResource ?? '',
          namespaced: r.scope === 'Namespaced',
          verbs: [...r.verbs],
        };
        if (r.shortNames?.length) res.shortNames = [...r.shortNames];
        if (r.categories?.length) res.categories = [...r.categories];
        const rk = otherKindRef(r.responseKind, name, v.version);
        if (rk) res.responseKind = rk;
        if (r.subresources?.length) {
          res.subresources = r.subresources.map((s) => {
            const sub: CatalogSubresource = { name: s.subresource, verbs: [...s.verbs] };
            const srk = s.responseKind;
            if (srk && (srk.kind !== kind || otherKindRef(srk, name, v.version))) {
              sub.responseKind = {
                kind: srk.kind,
                ...(srk.group ? { group: srk.group } : {}),
                ...(srk.version ? { version: srk.version } : {}),
              };
            }
            return sub;
          });
        }
        return res;
      });
      upsertVersion(group, v.version, resources);
    }
  }
}

/** A responseKind that names another group or version than the resource's own, else undefined. */
function otherKindRef(
  ref: { group?: string | undefined; version?: string | undefined; kind: string } | undefined,
  group: string,
  version: string,
) {
  if (!ref) return undefined;
  const g = ref.group ?? '';
  const v = ref.version ?? '';
  if ((g === '' || g === group) && (v === '' || v === version)) return undefined;
  return { kind: ref.kind, group: g, version: v };
}

function addLegacy(groups: Map<string, CatalogGroup>, doc: APIResourceList, file: string): void {
  const slash = doc.groupVersion.indexOf('/');
  const groupName = slash < 0 ? '' : doc.groupVersion.slice(0, slash);
  const version = slash < 0 ? doc.groupVersion : doc.groupVersion.slice(slash + 1);
  const parents = new Map<string, CatalogResource>();
  const resources: CatalogResource[] = [];
  doc.resources.forEach((r, i) => {
    const [parent, sub] = r.name.split('/', 2) as [string, string | undefined];
    if (sub === undefined) {
      const res: CatalogResource = {
        name: r.name,
        kind: r.kind,
        singular: r.singularName ?? '',
        namespaced: r.namespaced,
        verbs: [...r.verbs],
      };
      if (r.shortNames?.length) res.shortNames = [...r.shortNames];
      if (r.categories?.length) res.categories = [...r.categories];
      if ((r.group && r.group !== groupName) || (r.version && r.version !== version)) {
        res.responseKind = { kind: r.kind, group: r.group ?? '', version: r.version ?? '' };
      }
      parents.set(parent, res);
      resources.push(res);
      return;
    }
    const owner = parents.get(parent);
    if (!owner)
      throw new InputError(file, `subresource "${r.name}" comes before its resource "${parent}"`, { pointer: `/resources/${i}/name` });
    const s: CatalogSubresource = { name: sub, verbs: [...r.verbs] };
    if (r.kind !== owner.kind || r.group || r.version) {
      s.responseKind = { kind: r.kind, ...(r.group ? { group: r.group } : {}), ...(r.version ? { version: r.version } : {}) };
    }
    (owner.subresources ??= []).push(s);
  });
  upsertVersion(groupFor(groups, groupName), version, resources);
}

function groupFor(groups: Map<string, CatalogGroup>, name: string): CatalogGroup {
  let g = groups.get(name);
  if (!g) {
    g = { name, versions: [] };
    groups.set(name, g);
  }
  return g;
}

function upsertVersion(group: CatalogGroup, version: string, resources: CatalogResource[]): void {
  const existing = group.versions.find((v) => v.version === version);
  if (!existing) {
    group.versions.push({ version, resources });
    return;
  }
  // A second document for the same group-version (e.g. /api aggregated and /api/v1 legacy) adds
  // only what the first lacked: the first document is the richer source.
  for (const r of resources) if (!existing.resources.some((e) => e.name === r.name)) existing.resources.push(r);
}

/** Derives /version fields from a release name such as v1.37-dev or v1.33.2. */
export function versionOf(release: string): { major: string; minor: string; gitVersion: string } {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?(.*)$/.exec(release);
  if (!m) return { major: '', minor: '', gitVersion: release };
  const [, major = '1', minor = '0', patch, rest = ''] = m;
  const pre = rest.replace(/^[-+.]/, '');
  const gitVersion = `v${major}.${minor}.${patch ?? '0'}${pre ? `-${pre}` : ''}`;
  return { major, minor: pre ? `${minor}+` : minor, gitVersion };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
