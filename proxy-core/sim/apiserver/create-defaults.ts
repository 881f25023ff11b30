// What kube-apiserver fills in when an object is created, where a client reads it back: a
// namespace's phase, finalizer and name label (kubectl get namespaces prints the phase), and a
// secret's type and its stringData folded into data (kubectl get secrets prints both), a service's
// type, cluster IP and port defaults (service-defaults.ts).
import type { ApiContext } from './context.js';
import { isPlainObject } from './objects.js';
import type { ResourceRequest } from './request-info.js';
import { withServiceDefaults } from './service-defaults.js';

type Body = Record<string, unknown> & { metadata: Record<string, unknown> };

function withNamespaceDefaults(obj: Body): Body {
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  const labels = isPlainObject(obj.metadata.labels) ? obj.metadata.labels : {};
  return {
    ...obj,
    metadata: { ...obj.metadata, labels: { ...labels, 'kubernetes.io/metadata.name': obj.metadata.name } },
    spec: { ...spec, finalizers: Array.isArray(spec.finalizers) ? spec.finalizers : ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

/**
 * A secret as written on create and update: type Opaque unless given, and stringData (write-only)
 * folded into data, base64-encoded, over keys of the same name.
 */
export function withSecretDefaults(obj: Body): Body {
  const typed = typeof obj.type === 'string' && obj.type !== '' ? obj : { ...obj, type: 'Opaque' };
  const stringData = obj.stringData;
  if (!isPlainObject(stringData)) return typed;
  const { stringData: _written, ...rest } = typed;
  const data = isPlainObject(obj.data) ? { ...obj.data } : {};
  for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(String(value), 'utf8').toString('base64');
  return { ...rest, data, metadata: obj.metadata };
}

/** The object as stored on create, with the fields the real server sets for its kind. */
export function withCreateDefaults(ctx: ApiContext, rr: ResourceRequest, obj: Body): Body {
  if (rr.group !== '') return obj;
  if (rr.resource === 'services') return withServiceDefaults(obj, ctx.store.list({ group: '', resource: 'services' }));
  if (rr.resource === 'namespaces') return withNamespaceDefaults(obj);
  if (rr.resource === 'secrets') return withSecretDefaults(obj);
  return obj;
}
