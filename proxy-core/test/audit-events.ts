// Audit events as kube-apiserver's log backend writes them (audit.k8s.io/v1 Event, one JSON object a
// line, the field names and stages of k8s.io/apiserver's audit types), for tests of the audit reader.
import { randomUUID } from 'node:crypto';

export interface AuditRequest {
  readonly verb: string;
  readonly path: string;
  /** Absent for a non-resource request. */
  readonly ref?: { group: string; version: string; resource: string; namespace?: string; name?: string; subresource?: string };
  readonly code: number;
  readonly user?: string;
  readonly userAgent?: string;
  readonly auditID?: string;
  /** When the request arrived (ISO 8601 with microseconds, as a MicroTime); default a fixed morning. */
  readonly at?: string;
  /** Metadata (default) or RequestResponse, which carries the bodies. */
  readonly level?: 'Metadata' | 'RequestResponse';
  /** A watch: RequestReceived, ResponseStarted, then ResponseComplete when it ends. */
  readonly watch?: boolean;
  /** The client's address (default 172.18.0.1). */
  readonly sourceIP?: string;
  /** A deprecated API: the server annotates k8s.io/deprecated, and k8s.io/removed-release when given. */
  readonly deprecated?: { readonly removedRelease?: string };
}

export const SECRET_IN_BODY = 'c2VjcmV0LXBhc3N3b3JkLWluLWEtYm9keQ==';
export const SECRET_IN_EXTRA = 'extra-session-7f1c2e';

/** The events one request leaves in the log, in the order the server writes them. */
export function auditEventsOf(r: AuditRequest): Record<string, unknown>[] {
  const auditID = r.auditID ?? randomUUID();
  const received = r.at ?? '2026-11-26T05:00:00.000000Z';
  const ended = new Date(Date.parse(received) + 3).toISOString().replace('Z', '000Z');
  const objectRef = r.ref
    ? {
        resource: r.ref.resource,
        ...(r.ref.namespace ? { namespace: r.ref.namespace } : {}),
        ...(r.ref.name ? { name: r.ref.name } : {}),
        ...(r.ref.group ? { apiGroup: r.ref.group } : {}),
        apiVersion: r.ref.version,
        ...(r.ref.subresource ? { subresource: r.ref.subresource } : {}),
      }
    : undefined;
  const base = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: r.level ?? 'Metadata',
    auditID,
    requestURI: r.path,
    verb: r.verb,
    user: {
      username: r.user ?? 'kubernetes-admin',
      groups: ['kubeadm:cluster-admins', 'system:authenticated'],
      ...(r.level === 'RequestResponse' ? { extra: { 'authentication.kubernetes.io/credential-id': [SECRET_IN_EXTRA] } } : {}),
    },
    sourceIPs: [r.sourceIP ?? '172.18.0.1'],
    userAgent: r.userAgent ?? 'kubectl/v1.36.3 (linux/amd64) kubernetes/0a1b2c3',
    ...(objectRef ? { objectRef } : {}),
  };
  const status =
    r.code < 400
      ? { metadata: {}, code: r.code }
      : {
          metadata: {},
          status: 'Failure',
          message: 'the server could not find the requested resource',
          reason: 'NotFound',
          details: {},
          code: r.code,
        };
  const annotations = {
    'authorization.k8s.io/decision': 'allow',
    'authorization.k8s.io/reason': '',
    ...(r.deprecated ? { 'k8s.io/deprecated': 'true' } : {}),
    ...(r.deprecated?.removedRelease ? { 'k8s.io/removed-release': r.deprecated.removedRelease } : {}),
  };
  const events: Record<string, unknown>[] = [
    { ...base, stage: 'RequestReceived', requestReceivedTimestamp: received, stageTimestamp: received },
  ];
  if (r.watch)
    events.push({
      ...base,
      stage: 'ResponseStarted',
      responseStatus: { metadata: {}, code: 200 },
      requestReceivedTimestamp: received,
      stageTimestamp: received,
      annotations,
    });
  events.push({
    ...base,
    stage: 'ResponseComplete',
    responseStatus: status,
    ...(r.level === 'RequestResponse'
      ? {
          requestObject: { kind: 'Secret', apiVersion: 'v1', data: { password: SECRET_IN_BODY } },
          responseObject: { kind: 'Secret', apiVersion: 'v1', data: { password: SECRET_IN_BODY } },
        }
      : {}),
    requestReceivedTimestamp: received,
    stageTimestamp: ended,
    annotations,
  });
  return events;
}

/** Log lines of several requests, each request's events together (as a server with no concurrency writes them). */
export function auditLog(requests: readonly AuditRequest[]): string {
  return requests.flatMap((r) => auditEventsOf(r).map((e) => JSON.stringify(e) + '\n')).join('');
}

/** GET of a GVR the catalogs differ on: served by v1.37-dev only. */
export const PCR = { group: 'certificates.k8s.io', version: 'v1', resource: 'podcertificaterequests' } as const;
export const PCR_PATH = '/apis/certificates.k8s.io/v1/podcertificaterequests';
export const PODS = { group: '', version: 'v1', resource: 'pods', namespace: 'default' } as const;
export const PODS_PATH = '/api/v1/namespaces/default/pods';
