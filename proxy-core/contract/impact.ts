// Upgrade impact: which clients call what an upgrade removes, an older version of a resource a newer
// version serves too, what only some servers serve, what only
// the target release serves, and what apiservers warn is deprecated — from the requests through the
// port. The client usage is recorded by the core (bounded); the report classifies it against a target
// release. Both are plain data: a client's identity is a kubeconfig user name or a short hash of its
// credential, never the credential. docs/impact-report.schema.json is generated from this schema.
import { z } from 'zod';

export const IMPACT_REPORT_KIND = 'ImpactReport';

/** Most severe first: the order "sort by impact" uses. */
export const impactKinds = ['removed', 'superseded', 'skewed', 'deprecated', 'target-only'] as const;
export const impactKindSchema = z.enum(impactKinds);
export type ImpactKind = z.infer<typeof impactKindSchema>;

/**
 * Where a finding's requests were seen: through the local port, in the apiservers' own audit logs
 * (the cluster source: every client of the cluster), or in an apiserver's /metrics
 * (apiserver_requested_deprecated_apis: that someone requested a deprecated API, not who).
 */
export const impactSources = ['port', 'cluster-audit', 'metrics'] as const;
export const impactSourceSchema = z.enum(impactSources);
export type ImpactFindingSource = z.infer<typeof impactSourceSchema>;

/**
 * Who sent a request, as far as the port can tell. `identity` is the kubeconfig user name when the
 * port added its own credential, `token:<8 hex>` (the first 8 hex digits of the bearer token's
 * SHA-256), `<scheme>:<8 hex>` for another Authorization scheme, or `anonymous`; in a report made from
 * audit logs, the user name the apiserver authenticated.
 */
export const impactClientSchema = z.object({
  /** Short name from the user agent: its program, and a controller's name when client-go appended one. */
  name: z.string(),
  userAgent: z.string(),
  identity: z.string(),
});
export type ImpactClient = z.infer<typeof impactClientSchema>;

/** One client × GVR × verb as the port counted it. */
export const usageRowSchema = z.object({
  userAgent: z.string(),
  identity: z.string(),
  group: z.string(),
  version: z.string(),
  resource: z.string(),
  verb: z.string(),
  count: z.number().int().nonnegative(),
  /** Answers with status 404. */
  notFound: z.number().int().nonnegative(),
  /** Answers that carried a `Warning: 299` header. */
  warned: z.number().int().nonnegative(),
  /** The distinct warning texts (at most a few per row). */
  warnings: z.array(z.string()),
  firstAt: z.number(),
  lastAt: z.number(),
  /** Requests per minute within the window, oldest first; only minutes with requests. */
  minutes: z.array(z.object({ at: z.number(), count: z.number().int().positive() })),
});
export type UsageRow = z.infer<typeof usageRowSchema>;

export const clientUsageSchema = z.object({
  /** Epoch ms when counting started, and when this was read. */
  since: z.number(),
  at: z.number(),
  /** Per-minute counts reach back this far. */
  windowMinutes: z.number().int().positive(),
  rows: z.array(usageRowSchema),
  /** Requests not counted in any row: the row limit was reached (docs/decisions.md). */
  untracked: z.number().int().nonnegative(),
});
export type ClientUsage = z.infer<typeof clientUsageSchema>;

export const impactVerbSchema = z.object({
  verb: z.string(),
  count: z.number().int().nonnegative(),
  /** Over the window (or the time since counting started, when shorter). */
  perMinute: z.number().nonnegative(),
});

export const impactFindingSchema = z.object({
  client: impactClientSchema,
  group: z.string(),
  version: z.string(),
  resource: z.string(),
  /** Most frequent first. */
  verbs: z.array(impactVerbSchema),
  impact: impactKindSchema,
  /** The finding in plain words. */
  message: z.string(),
  evidence: z.object({
    /** Current servers whose own discovery lists the GVR. */
    servedNowBy: z.array(z.string()),
    /** Current servers (with a discovery document) that do not. */
    notServedNowBy: z.array(z.string()),
    servedByTarget: z.boolean(),
    /** Requests answered 404 so far. */
    notFound: z.number().int().nonnegative(),
    /**
     * The newest version serving the same group and resource (version priority; the target's when it
     * serves one), when newer than the one used: where the client will have to move. Absent otherwise.
     */
    newestVersion: z.string().optional(),
    /** Warning texts apiservers sent this client for this GVR. */
    warnings: z.array(z.string()),
    firstAt: z.number(),
    lastAt: z.number(),
  }),
  /** Requests per minute, all verbs, oldest first (only minutes with requests). */
  minutes: z.array(z.object({ at: z.number(), count: z.number().int().positive() })),
  /** Where its requests were seen; absent in reports of earlier Peerscope versions (then: the report's `source`). */
  source: impactSourceSchema.optional(),
});
export type ImpactFinding = z.infer<typeof impactFindingSchema>;

export const impactReportSchema = z.object({
  apiVersion: z.literal('peerscope.dev/v1'),
  kind: z.literal(IMPACT_REPORT_KIND),
  /** Epoch ms the report was made. */
  at: z.number(),
  target: z.object({
    release: z.string(),
    gitVersion: z.string(),
    /** The release as asked (`v1.37.2`, `1.37`) when that is not the catalog's name; absent otherwise and in earlier reports. */
    asked: z.string().optional(),
    /** What was asked and what it was judged against ("v1.37.2 (run by cp-2) judged against the catalog's v1.37-dev, …"). */
    note: z.string().optional(),
  }),
  /** The servers the GVRs were compared against, with their releases. */
  current: z.array(
    z.object({
      name: z.string(),
      /** What a person reads (servers.ts); absent in reports of earlier Peerscope versions. */
      displayName: z.string().optional(),
      gitVersion: z.string().optional(),
    }),
  ),
  /** What the counts cover. */
  window: z.object({ since: z.number(), until: z.number(), minutes: z.number().nonnegative() }),
  /**
   * Where the requests were counted: the apiservers' own audit logs (every client of the cluster; a
   * client's identity is then the user the apiserver authenticated); absent, the local port.
   */
  source: z.literal('audit-logs').optional(),
  /**
   * The sources a live core's report read (its findings say which each comes from): the port always,
   * the cluster's audit logs when it follows them, the servers' /metrics when any was read. Absent in
   * reports of earlier Peerscope versions and in reports made from files.
   */
  sources: z.array(impactSourceSchema).optional(),
  /** Most severe first, then by volume. */
  findings: z.array(impactFindingSchema),
  /** Distinct clients seen (user agent × identity). */
  clients: z.number().int().nonnegative(),
  /** Requests the usage limits left uncounted. */
  untracked: z.number().int().nonnegative(),
  /** Releases a report can be made against here (the release catalog). */
  targets: z.array(z.string()),
});
export type ImpactReport = z.infer<typeof impactReportSchema>;

export const getImpactReportArgsSchema = z.object({
  /** A release of the catalog; default: the newest release above every current server's. */
  to: z.string().min(1).max(200).optional(),
});
export type GetImpactReportArgs = z.infer<typeof getImpactReportArgsSchema>;

/** How much each impact weighs when sorting (higher first). */
export function impactRank(kind: ImpactKind): number {
  return impactKinds.length - impactKinds.indexOf(kind);
}

/** "kube-controller-manager/v1.36.0 (linux/amd64) kubernetes/abc/namespace-controller" → "kube-controller-manager (namespace-controller)". */
export function clientNameOf(userAgent: string): string {
  if (!userAgent) return '(no user agent)';
  const program = userAgent.split(/[/ ]/, 1)[0] || userAgent;
  // client-go's default: "<program>/<version> (<os>/<arch>) kubernetes/<commit>", then "/<controller>" when named.
  const named = /\) kubernetes\/[^/\s]+\/(.+)$/.exec(userAgent);
  const controller = named?.[1]?.split(':').pop();
  return controller ? `${program} (${controller})` : program;
}
