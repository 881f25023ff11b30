// Reads one server's *own* discovery (rule §4.4, P2): aggregated v2 with profile=nopeer first, then
// v2, then v2beta1, then the legacy per-group-version crawl. ETag-aware: an unchanged document costs
// a 304. The result is what routing treats as that server's "local discovery cache".
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { createHash } from 'node:crypto';
import { aggregatedFromLegacy } from './legacy.js';
import { apiGroupDiscoveryListSchema, MEDIA, type APIGroupDiscoveryList, type GVR } from './types.js';
import { PeerscopeError } from '../../contract/errors.js';

const ACCEPT = `${MEDIA.v2JsonNoPeer},${MEDIA.v2Json},${MEDIA.v2beta1Json};q=0.9,application/json;q=0.8`;

/** A GET reader of one server (cluster/server-reader.ts's AgentServerReader is the one the core uses). */
export interface DiscoveryReader {
  readonly server: { readonly name: string };
  get(
    path: string,
    headers?: Record<string, string>,
  ): Promise<{ readonly status: number; readonly headers: Record<string, string | string[] | undefined>; readonly body: string }>;
}

export type DiscoverySource = 'aggregated-v2' | 'aggregated-v2beta1' | 'legacy';

export interface ServerDiscovery {
  /** `/apis`: every non-core group, in the server's order. */
  readonly apis: APIGroupDiscoveryList;
  /** `/api`: the core group. */
  readonly api: APIGroupDiscoveryList;
  readonly gvrs: readonly GVR[];
  /** "group/version" of CRDs and service-backed APIServices: never proxied (rule R6). */
  readonly excludedGroupVersions: readonly string[];
  /**
   * "group/version" of the server's legacy `/apis` (APIGroupList): what clients of legacy discovery get
   * straight from it. kube-apiserver lists there its APIServices and the aggregator's own group, so a
   * group-version its own aggregated discovery lists but this does not lost its registration
   * (discovery/missing-registration.ts). Undefined when it could not be read as an APIGroupList.
   */
  readonly legacyGroupVersions?: readonly string[];
  readonly source: DiscoverySource;
  /** Hash of the documents' content: equal hashes mean nothing changed. */
  readonly contentHash: string;
  readonly etags: { readonly api?: string; readonly apis?: string };
  readonly fetchedAt: number;
  /** When the content last changed: the rollout timeline of this server. */
  readonly changedAt: number;
}

export class DiscoveryError extends PeerscopeError {
  override readonly name = 'DiscoveryError';
  constructor(
    readonly server: string,
    readonly path: string,
    detail: string,
  ) {
    super('PEERSCOPE_ERR_DISCOVERY', `discovery of ${server} failed at ${path}: ${detail}`);
  }
}

interface RootResult {
  readonly doc: APIGroupDiscoveryList;
  readonly source: DiscoverySource;
  readonly etag?: string;
  readonly unchanged: boolean;
}

export interface FetchOptions {
  /**
   * 'when-changed': the CRD and APIService lists (the R6 exclusions) are read only when `/api` or
   * `/apis` changed, else the previous ones are kept — a re-read after a watch event costs two 304s.
   * Default 'always' (the periodic re-read).
   */
  readonly excluded?: 'always' | 'when-changed';
}

export async function fetchServerDiscovery(
  reader: DiscoveryReader,
  previous?: ServerDiscovery,
  now = Date.now,
  options: FetchOptions = {},
): Promise<ServerDiscovery> {
  const [apis, api] = await Promise.all([
    fetchRoot(reader, '/apis', previous?.apis, previous?.etags.apis, previous?.source),
    fetchRoot(reader, '/api', previous?.api, previous?.etags.api, previous?.source),
  ]);
  const keepExcluded = options.excluded === 'when-changed' && previous && apis.unchanged && api.unchanged;
  const { excluded: excludedGroupVersions, legacy: legacyGroupVersions } = keepExcluded
    ? { excluded: previous.excludedGroupVersions, legacy: previous.legacyGroupVersions }
    : await fetchRegistrations(reader);
  const gvrs = [...gvrsOf(api.doc), ...gvrsOf(apis.doc)];
  const contentHash = createHash('sha256')
    .update(JSON.stringify([api.doc, apis.doc, excludedGroupVersions, legacyGroupVersions ?? null]))
    .digest('hex');
  const at = now();
  const changed = !previous || previous.contentHash !== contentHash;
  return {
    apis: apis.doc,
    api: api.doc,
    gvrs,
    excludedGroupVersions,
    ...(legacyGroupVersions ? { legacyGroupVersions } : {}),
    source: apis.source,
    contentHash,
    etags: { ...(api.etag ? { api: api.etag } : {}), ...(apis.etag ? { apis: apis.etag } : {}) },
    fetchedAt: at,
    changedAt: changed ? at : previous.changedAt,
  };
}

async function fetchRoot(
  reader: DiscoveryReader,
  root: '/api' | '/apis',
  previousDoc: APIGroupDiscoveryList | undefined,
  previousEtag: string | undefined,
  previousSource: DiscoverySource | undefined,
): Promise<RootResult> {
  const headers: Record<string, string> = { accept: ACCEPT };
  if (previousEtag && previousDoc) headers['if-none-match'] = previousEtag;
  const res = await reader.get(root, headers);
  if (res.status === 304 && previousDoc) {
    return {
      doc: previousDoc,
      source: previousSource ?? 'aggregated-v2',
      unchanged: true,
      ...(previousEtag ? { etag: previousEtag } : {}),
    };
  }
  if (res.status !== 200) throw new DiscoveryError(reader.server.name, root, `HTTP ${res.status}${statusMessage(res.body)}`);
  const etag = typeof res.headers.etag === 'string' ? res.headers.etag : undefined;
  const json = parseBody(reader.server.name, root, res.body);
  const kind = (json as { kind?: unknown }).kind;
  if (kind === 'APIGroupDiscoveryList') {
    const parsed = apiGroupDiscoveryListSchema.safeParse(json);
    if (!parsed.success)
      throw new DiscoveryError(reader.server.name, root, `not a valid APIGroupDiscoveryList: ${parsed.error.issues[0]?.message}`);
    const source: DiscoverySource = parsed.data.apiVersion.endsWith('v2beta1') ? 'aggregated-v2beta1' : 'aggregated-v2';
    return { doc: parsed.data, source, unchanged: false, ...(etag ? { etag } : {}) };
  }
  if (kind === 'APIGroupList' || kind === 'APIVersions') {
    return { doc: await crawlLegacy(reader, root, json), source: 'legacy', unchanged: false };
  }
  throw new DiscoveryError(reader.server.name, root, `unexpected kind ${JSON.stringify(kind)}`);
}

/** Servers without aggregated discovery (before 1.26): read every group-version list. */
async function crawlLegacy(reader: DiscoveryReader, root: '/api' | '/apis', json: unknown): Promise<APIGroupDiscoveryList> {
  const paths: string[] = [];
  if (root === '/api') {
    for (const v of (json as { versions?: string[] }).versions ?? []) paths.push(`/api/${v}`);
  } else {
    for (const g of (json as { groups?: { versions?: { groupVersion: string }[] }[] }).groups ?? []) {
      for (const v of g.versions ?? []) paths.push(`/apis/${v.groupVersion}`);
    }
  }
  const inputs = await Promise.all(
    paths.map(async (path) => {
      const res = await reader.get(path, { accept: 'application/json' });
      if (res.status !== 200) throw new DiscoveryError(reader.server.name, path, `HTTP ${res.status}`);
      return { file: `${reader.server.name}${path}`, text: res.body };
    }),
  );
  if (inputs.length === 0) return { apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items: [] };
  return aggregatedFromLegacy(inputs, root === '/api' ? 'api' : 'apis');
}

/**
 * GVs of CRDs and service-backed APIServices (excluded), read with the legacy `/apis` (undefined when
 * it is not an APIGroupList); best effort (RBAC may forbid the reads). The legacy list is read with
 * the registrations because it follows them: an APIService deleted or created changes it.
 */
async function fetchRegistrations(reader: DiscoveryReader): Promise<{ excluded: string[]; legacy?: string[] }> {
  const out = new Set<string>();
  const reads = await Promise.allSettled([
    reader.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { accept: 'application/json' }),
    reader.get('/apis/apiregistration.k8s.io/v1/apiservices', { accept: 'application/json' }),
    reader.get('/apis', { accept: 'application/json' }),
  ]);
  const [crds, apiServices, legacyApis] = reads;
  if (crds.status === 'fulfilled' && crds.value.status === 200) {
    const list = safeJson(crds.value.body) as { items?: { spec?: { group?: string; versions?: { name?: string; served?: boolean }[] } }[] };
    for (const crd of list?.items ?? []) {
      for (const v of crd.spec?.versions ?? []) if (crd.spec?.group && v.name && v.served !== false) out.add(`${crd.spec.group}/${v.name}`);
    }
  }
  if (apiServices.status === 'fulfilled' && apiServices.value.status === 200) {
    const list = safeJson(apiServices.value.body) as { items?: { spec?: { group?: string; version?: string; service?: unknown } }[] };
    for (const svc of list?.items ?? []) {
      if (svc.spec?.service && svc.spec.group && svc.spec.version) out.add(`${svc.spec.group}/${svc.spec.version}`);
    }
  }
  const legacy =
    legacyApis.status === 'fulfilled' && legacyApis.value.status === 200 ? legacyGroupVersionsOf(legacyApis.value.body) : undefined;
  return { excluded: [...out].sort(), ...(legacy ? { legacy } : {}) };
}

/** "group/version" of an APIGroupList; undefined for any other answer. */
function legacyGroupVersionsOf(body: string): string[] | undefined {
  const list = safeJson(body) as { kind?: string; groups?: { versions?: { groupVersion?: string }[] }[] } | undefined;
  if (list?.kind !== 'APIGroupList' || !Array.isArray(list.groups)) return undefined;
  return list.groups.flatMap((g) => (g.versions ?? []).flatMap((v) => (v.groupVersion ? [v.groupVersion] : []))).sort();
}

export function gvrsOf(doc: APIGroupDiscoveryList): GVR[] {
  const out: GVR[] = [];
  for (const g of doc.items) {
    const group = g.metadata?.name ?? '';
    for (const v of g.versions) for (const r of v.resources ?? []) out.push({ group, version: v.version, resource: r.resource });
  }
  return out;
}

function parseBody(server: string, path: string, body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new DiscoveryError(server, path, 'the answer is not JSON');
  }
}

function safeJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function statusMessage(body: string): string {
  const s = safeJson(body) as { kind?: string; message?: string } | undefined;
  return s?.kind === 'Status' && s.message ? `: ${s.message}` : '';
}
