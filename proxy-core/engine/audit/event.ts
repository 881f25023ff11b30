// The fields of a kube-apiserver audit event (audit.k8s.io/v1 Event) that Peerscope keeps, and the
// record one event becomes. The schema lists only what is kept: zod drops every other field while it
// parses, so requestObject, responseObject (policy level Request and RequestResponse carry the bodies
// there), user.extra and user.groups never reach a record; of the annotations only the two that mark a
// deprecated API are kept (set by kube-apiserver's request metrics, staging/src/k8s.io/apiserver/pkg/
// endpoints/metrics: `k8s.io/deprecated: "true"`, and `k8s.io/removed-release: "<major>.<minor>"` when
// a removal is planned).
import { z } from 'zod';

export const AUDIT_API_VERSION = 'audit.k8s.io/v1';
export const AUDIT_KIND = 'Event';

export const DEPRECATED_ANNOTATION = 'k8s.io/deprecated';
export const REMOVED_RELEASE_ANNOTATION = 'k8s.io/removed-release';

export const auditStages = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type AuditStage = (typeof auditStages)[number];

/** A MicroTime ("2026-11-26T05:44:31.123456Z"); kept as epoch milliseconds. */
const microTime = z.string().transform((text, ctx) => {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) {
    // The value itself is not quoted: a message never carries a piece of the input.
    ctx.addIssue({ code: 'custom', message: 'not a time (RFC 3339, as MicroTime)' });
    return z.NEVER;
  }
  return ms;
});

export const auditEventSchema = z.object({
  auditID: z.string().min(1),
  stage: z.enum(auditStages),
  requestURI: z.string(),
  verb: z.string(),
  user: z.object({ username: z.string().optional() }),
  userAgent: z.string().optional(),
  objectRef: z
    .object({
      apiGroup: z.string().optional(),
      apiVersion: z.string().optional(),
      resource: z.string().optional(),
      subresource: z.string().optional(),
      namespace: z.string().optional(),
      name: z.string().optional(),
    })
    .optional(),
  responseStatus: z.object({ code: z.number().int().optional() }).optional(),
  /** The request's source addresses, the client's first (matches a log to the server whose own requests come from it). */
  sourceIPs: z.array(z.string()).optional(),
  annotations: z.object({ [DEPRECATED_ANNOTATION]: z.string().optional(), [REMOVED_RELEASE_ANNOTATION]: z.string().optional() }).optional(),
  requestReceivedTimestamp: microTime,
  stageTimestamp: microTime,
});
export type AuditEvent = z.infer<typeof auditEventSchema>;

/** What the request was for, from the event's objectRef (taken from the path, so also for a GVR the server does not serve). */
export interface AuditTarget {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** One audit event as Peerscope keeps it. */
export interface AuditRecord {
  /** The server that wrote the event: the one that handled the request. */
  readonly server: string;
  readonly auditID: string;
  readonly stage: AuditStage;
  readonly verb: string;
  /** The request path without its query (a query can carry secrets). */
  readonly path: string;
  readonly user: string;
  readonly userAgent: string;
  /** null: a non-resource request (/healthz, /apis, /version, …). */
  readonly target: AuditTarget | null;
  /** The response code; null when the event has none (RequestReceived, a Panic). */
  readonly code: number | null;
  /** Epoch milliseconds. */
  readonly receivedAt: number;
  readonly stageAt: number;
  /** The client's address (sourceIPs[0]); '' when the event had none. */
  readonly sourceIP: string;
  /** Set when the server marked the request as one for a deprecated API; removedRelease '' when no removal is planned. */
  readonly deprecated?: { readonly removedRelease: string };
}

export function auditRecordOf(server: string, e: AuditEvent): AuditRecord {
  const ref = e.objectRef;
  const query = e.requestURI.indexOf('?');
  return {
    server,
    auditID: e.auditID,
    stage: e.stage,
    verb: e.verb,
    path: query < 0 ? e.requestURI : e.requestURI.slice(0, query),
    user: e.user.username ?? '',
    userAgent: e.userAgent ?? '',
    target: ref?.resource
      ? {
          group: ref.apiGroup ?? '',
          version: ref.apiVersion ?? '',
          resource: ref.resource,
          subresource: ref.subresource ?? '',
          namespace: ref.namespace ?? '',
          name: ref.name ?? '',
        }
      : null,
    code: e.responseStatus?.code ?? null,
    receivedAt: e.requestReceivedTimestamp,
    stageAt: e.stageTimestamp,
    sourceIP: e.sourceIPs?.[0] ?? '',
    ...(e.annotations?.[DEPRECATED_ANNOTATION] === 'true'
      ? { deprecated: { removedRelease: e.annotations[REMOVED_RELEASE_ANNOTATION] ?? '' } }
      : {}),
  };
}
