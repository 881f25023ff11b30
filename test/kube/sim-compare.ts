// The simulated control plane held against a real one where the two should agree: what an identity
// lease and the default/kubernetes Endpoints and EndpointSlice look like, and the Status bodies of
// the common errors. Where they differ by design the report says so and why (docs/decisions.md).
import { Agent, request } from 'undici';
import { loadRelease } from '../../proxy-core/engine/releases/index.js';
import { startSimCluster } from '../../proxy-core/sim/index.js';
import type { ControlPlane } from './control-plane.js';

export interface SimComparison {
  readonly disagreements: string[];
  readonly report: string[];
}

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  type: string;
  body: Json | string;
}

const keys = (o: unknown) =>
  Object.keys((o ?? {}) as Json)
    .sort()
    .join(',');
const LEASES =
  '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver';

/** Error answers both should give alike: [what, method, path, body, bearer token ("" = the cluster's)]. */
const ERROR_CASES: [string, string, string, unknown, string][] = [
  ['a missing object', 'GET', '/api/v1/namespaces/default/configmaps/nope', undefined, ''],
  ['an unknown resource of a served group/version', 'GET', '/apis/apps/v1/namespaces/default/widgets', undefined, ''],
  ['an unknown version of a served group', 'GET', '/apis/apps/v9/deployments', undefined, ''],
  [
    'a create of a name taken',
    'POST',
    '/api/v1/namespaces/default/configmaps',
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'taken' } },
    '',
  ],
  ['a token nobody issued', 'GET', '/api/v1/namespaces', undefined, 'not-a-token'],
  ['a patch of an unknown content type', 'PATCH', '/api/v1/namespaces/default/configmaps/taken', {}, ''],
];

export async function compareWithSim(cp: ControlPlane, host: string): Promise<SimComparison> {
  const sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')] });
  const agent = new Agent({ connect: { ca: sim.ca as string } });
  const disagreements: string[] = [];
  const report: string[] = [];
  const same = (what: string, real: unknown, simulated: unknown) => {
    const r = JSON.stringify(real);
    const s = JSON.stringify(simulated);
    if (r === s) report.push(`agree   ${what}: ${r}`);
    else disagreements.push(`${what}: real ${r}, simulated ${s}`);
  };
  const simCall = async (method: string, path: string, body?: unknown, token = '', raw = false): Promise<Answer> => {
    const res = await request(`${sim.servers[1]!.info().url}${path}`, {
      method: method as 'GET',
      dispatcher: agent,
      headers: {
        authorization: `Bearer ${token || sim.token}`,
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return answer(res.statusCode, String(res.headers['content-type']), await res.body.text(), raw);
  };
  const realCall = async (method: string, path: string, body?: unknown, token = '', raw = false): Promise<Answer> => {
    const r = await cp.call(host, path, {
      method,
      ...(body !== undefined ? { body } : {}),
      ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    });
    return answer(r.status, String(r.headers['content-type']), r.text, raw);
  };
  try {
    // The identity lease.
    const realLease = ((await realCall('GET', LEASES, undefined, '', true)).body as { items: Json[] }).items.find(
      (l) => ((l.metadata as Json).labels as Json)['kubernetes.io/hostname'] === host,
    ) as Json;
    const simLease = ((await simCall('GET', LEASES, undefined, '', true)).body as { items: Json[] }).items[0] as Json;
    const shape = (l: Json) => {
      const m = l.metadata as { name: string; labels: Json; annotations?: Json };
      const spec = l.spec as { holderIdentity: string; renewTime: string };
      return {
        name: /^apiserver-[a-z0-9-]+$/.test(m.name),
        labels: keys(m.labels),
        annotations: keys(m.annotations),
        address: /^[\d.]+:\d+$/.test(String(m.annotations?.['kubernetes.io/peer-advertise-address'])),
        spec: keys(l.spec),
        holderIdentity: new RegExp(`^${m.name}_[0-9a-f-]{36}$`).test(spec.holderIdentity),
        renewTime: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(spec.renewTime),
      };
    };
    same('identity lease shape', shape(realLease), shape(simLease));
    // The kubernetes Endpoints and EndpointSlice.
    const realEps = (await realCall('GET', '/api/v1/namespaces/default/endpoints/kubernetes', undefined, '', true)).body as Json;
    const simEps = (await simCall('GET', '/api/v1/namespaces/default/endpoints/kubernetes', undefined, '', true)).body as Json;
    const epShape = (e: Json) => ({
      labels: (e.metadata as Json).labels,
      subset: keys((e.subsets as Json[])[0]),
      address: keys(((e.subsets as Json[])[0]!.addresses as Json[])[0]),
      port: { ...((e.subsets as Json[])[0]!.ports as Json[])[0], port: 0 },
    });
    same('default/kubernetes Endpoints shape', epShape(realEps), epShape(simEps));
    const realSlice = (await realCall('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes', undefined, '', true))
      .body as Json;
    const simSlice = (await simCall('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes', undefined, '', true))
      .body as Json;
    const sliceShape = (e: Json) => ({
      labels: (e.metadata as Json).labels,
      addressType: e.addressType,
      endpoint: (e.endpoints as Json[]).map(keys)[0],
      conditions: (e.endpoints as Json[])[0]!.conditions,
    });
    same('default/kubernetes EndpointSlice shape', sliceShape(realSlice), sliceShape(simSlice));
    report.push(
      `differs by design: the simulated servers share one IP on different ports, so their Endpoints have one subset per server (real: ${JSON.stringify((realEps.subsets as Json[]).length)} subset listing every address on the one shared port) and their EndpointSlice one named port per server`,
    );

    // The common errors.
    for (const [what, method, path, body, token] of ERROR_CASES) {
      if (what === 'a create of a name taken') {
        await realCall(method, path, body);
        await simCall(method, path, body);
      }
      const r = await realCall(method, path, body, token);
      const s = await simCall(method, path, body, token);
      same(`${what} (${method} ${path})`, r, s);
    }
    const realUnknownGroup = await realCall('GET', '/apis/nothere.example.com/v1/widgets');
    const simUnknownGroup = await simCall('GET', '/apis/nothere.example.com/v1/widgets');
    report.push(
      `differs (known): a group no server serves: real ${realUnknownGroup.status} ${realUnknownGroup.type} ${JSON.stringify(realUnknownGroup.body)}, simulated ${simUnknownGroup.status} ${simUnknownGroup.type} (a Status)`,
    );
    report.push(
      'differs (known): the simulated servers have no RBAC (any valid token is a cluster admin) and no NamespaceLifecycle admission (a create in a missing namespace succeeds)',
    );
  } finally {
    await agent.close();
    await sim.close();
  }
  return { disagreements, report };
}

function answer(status: number, type: string, text: string, raw: boolean): Answer {
  let body: Json | string = text.trim();
  try {
    body = JSON.parse(text) as Json;
  } catch {
    // Not JSON: kept as text.
  }
  // Field order and the object's own identity are not part of the answer's shape.
  if (raw) return { status, type, body };
  if (typeof body === 'object' && body.kind !== 'Status') body = { kind: body.kind as string };
  return { status, type: type.split(';')[0] as string, body: typeof body === 'object' ? sortKeys(body) : body };
}

function sortKeys(o: Json): Json {
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k] && typeof o[k] === 'object' && !Array.isArray(o[k]) ? sortKeys(o[k] as Json) : o[k]]),
  );
}
