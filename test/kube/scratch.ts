import { startControlPlane } from './control-plane.js';
import { startSimCluster } from '../../proxy-core/src/sim/index.js';
import { loadRelease } from '../../proxy-core/src/sim/catalog/index.js';
import { Agent, request } from 'undici';
const cp = await startControlPlane({ servers: [{ host: 'kube-a', release: 'v1.37.2' }, { host: 'kube-b', release: 'v1.37.2' }] });
const sim = await startSimCluster({ releases: [loadRelease('v1.37-dev'), loadRelease('v1.37-dev')] });
const agent = new Agent({ connect: { ca: sim.ca } });
const simCall = async (path: string, o: { method?: string; body?: unknown; token?: string } = {}) => {
  const r = await request(sim.servers[0]!.info().url + path, { method: (o.method ?? 'GET') as 'GET', dispatcher: agent, headers: { authorization: `Bearer ${o.token ?? sim.token}`, accept: 'application/json', ...(o.body ? { 'content-type': 'application/json' } : {}) }, ...(o.body ? { body: JSON.stringify(o.body) } : {}) });
  return { status: r.statusCode, ct: r.headers['content-type'], text: await r.body.text() };
};
const realCall = async (path: string, o: { method?: string; body?: unknown; token?: string } = {}) => {
  const r = await cp.call('kube-a', path, { method: o.method, body: o.body, headers: o.token ? { authorization: `Bearer ${o.token}` } : {} });
  return { status: r.status, ct: r.headers['content-type'], text: r.text };
};
const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dup' } };
const cases: [string, string, { method?: string; body?: unknown; token?: string }][] = [
  ['missing object', '/api/v1/namespaces/default/configmaps/nope', {}],
  ['unknown resource in known GV', '/apis/apps/v1/namespaces/default/widgets', {}],
  ['unknown version of known group', '/apis/apps/v9/deployments', {}],
  ['unknown group', '/apis/nothere.example.com/v1/widgets', {}],
  ['create', '/api/v1/namespaces/default/configmaps', { method: 'POST', body: cm }],
  ['already exists', '/api/v1/namespaces/default/configmaps', { method: 'POST', body: cm }],
  ['bad token', '/api/v1/namespaces', { token: 'wrong' }],
  ['forbidden', '/api/v1/namespaces/default/configmaps', { token: cp.pki.viewerToken }],
  ['missing namespace', '/api/v1/namespaces/nope/configmaps', { method: 'POST', body: cm }],
  ['not allowed method', '/api/v1/namespaces/default/configmaps/dup', { method: 'PATCH', body: {} }],
];
for (const [what, path, o] of cases) {
  const r = await realCall(path, o);
  const s = await simCall(path, o.token === cp.pki.viewerToken ? { ...o, token: 'nobody' } : o);
  console.log(`== ${what} ${o.method ?? 'GET'} ${path}\n real ${r.status} ${r.ct} ${r.text.trim().slice(0, 400)}\n sim  ${s.status} ${s.ct} ${s.text.trim().slice(0, 400)}`);
}
const lease = (await cp.call('kube-a', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver')).json().items[0];
console.log('real lease', JSON.stringify(lease));
console.log('sim lease', (await simCall('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases')).text.slice(0, 1200));
console.log('real eps', (await cp.call('kube-a', '/api/v1/namespaces/default/endpoints/kubernetes')).text);
console.log('sim eps', (await simCall('/api/v1/namespaces/default/endpoints/kubernetes')).text);
console.log('real slice', (await cp.call('kube-a', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).text);
console.log('sim slice', (await simCall('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).text);
await agent.close(); await sim.close(); await cp.close();
