// A server without aggregated discovery (before Kubernetes 1.26) answers only the legacy documents:
// one APIResourceList per group-version. This turns them into the aggregated form
// (apidiscovery.k8s.io/v2 APIGroupDiscoveryList) the rest of the engine reads, as kube-apiserver
// itself derives its aggregated document from the same resource lists.
import { fromZodError, InputError, parseJsonText } from '../util/input-error.js';
import {
  apiResourceListSchema,
  type APIGroupDiscovery,
  type APIGroupDiscoveryList,
  type APIResourceDiscovery,
  type APIResourceList,
} from './types.js';

export interface LegacyDocument {
  /** Names the document in errors ("server/apis/apps/v1"). */
  readonly file: string;
  readonly text: string;
}

/**
 * The aggregated `/api` (core group) or `/apis` (every other group) document of a set of legacy
 * APIResourceLists. A group-version listed twice keeps the first list's resources and adds only what
 * it lacked.
 */
export function aggregatedFromLegacy(documents: readonly LegacyDocument[], root: 'api' | 'apis'): APIGroupDiscoveryList {
  const groups = new Map<string, APIGroupDiscovery>();
  for (const document of documents) {
    const list = parseResourceList(document);
    const slash = list.groupVersion.indexOf('/');
    const group = slash < 0 ? '' : list.groupVersion.slice(0, slash);
    const version = slash < 0 ? list.groupVersion : list.groupVersion.slice(slash + 1);
    if ((root === 'api') !== (group === '')) continue;
    const resources = resourcesOf(list, group, version, document.file);
    let entry = groups.get(group);
    if (!entry) {
      entry = { metadata: group === '' ? {} : { name: group }, versions: [] };
      groups.set(group, entry);
    }
    const existing = entry.versions.find((v) => v.version === version);
    if (!existing) entry.versions.push({ version, resources, freshness: 'Current' });
    else for (const r of resources) if (!existing.resources?.some((e) => e.resource === r.resource)) existing.resources?.push(r);
  }
  return { apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items: [...groups.values()] };
}

function parseResourceList(document: LegacyDocument): APIResourceList {
  const json = parseJsonText(document.text, document.file);
  const kind = (json as { kind?: unknown } | null)?.kind;
  if (kind !== 'APIResourceList')
    throw new InputError(document.file, `kind is ${JSON.stringify(kind)}; expected APIResourceList`, { pointer: '/kind' });
  const parsed = apiResourceListSchema.safeParse(json);
  if (!parsed.success) throw fromZodError(document.file, parsed.error);
  return parsed.data;
}

/** A list's resources in aggregated form, each subresource ("pods/status") under its resource. */
function resourcesOf(list: APIResourceList, group: string, version: string, file: string): APIResourceDiscovery[] {
  const byName = new Map<string, APIResourceDiscovery>();
  const out: APIResourceDiscovery[] = [];
  list.resources.forEach((r, i) => {
    const [parent, sub] = r.name.split('/', 2) as [string, string | undefined];
    if (sub === undefined) {
      // A kind served from another group or version names it; the resource's own is left empty.
      const foreign = (r.group && r.group !== group) || (r.version && r.version !== version);
      const resource: APIResourceDiscovery = {
        resource: r.name,
        responseKind: { group: foreign ? (r.group ?? '') : '', version: foreign ? (r.version ?? '') : '', kind: r.kind },
        scope: r.namespaced ? 'Namespaced' : 'Cluster',
        singularResource: r.singularName ?? '',
        verbs: [...r.verbs],
      };
      if (r.shortNames?.length) resource.shortNames = [...r.shortNames];
      if (r.categories?.length) resource.categories = [...r.categories];
      byName.set(parent, resource);
      out.push(resource);
      return;
    }
    const owner = byName.get(parent);
    if (!owner)
      throw new InputError(file, `subresource "${r.name}" comes before its resource "${parent}"`, { pointer: `/resources/${i}/name` });
    (owner.subresources ??= []).push({
      subresource: sub,
      responseKind: { group: r.group ?? '', version: r.version ?? '', kind: r.kind },
      verbs: [...r.verbs],
    });
  });
  return out;
}
