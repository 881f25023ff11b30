import { describe, expect, it } from 'vitest';
import { impactReportSchema, type ClientUsage, type UsageRow } from '../../contract/impact.js';
import type { ServerStatus } from '../../contract/servers.js';
import type { ServerMetrics } from '../../contract/server-metrics.js';
import { METRICS_CLIENT, impactReportOfSources } from './of-sources.js';
import type { ImpactInput } from './report.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function row(over: Partial<UsageRow>): UsageRow {
  return {
    userAgent: 'kubectl/v1.36.3',
    identity: 'admin',
    group: 'x.io',
    version: 'v1',
    resource: 'things',
    verb: 'list',
    count: 4,
    notFound: 0,
    warned: 0,
    warnings: [],
    firstAt: T0,
    lastAt: T0 + 60_000,
    minutes: [{ at: T0, count: 4 }],
    ...over,
  };
}

const usage = (rows: UsageRow[], since = T0): ClientUsage => ({ since, at: T0 + 120_000, windowMinutes: 60, rows, untracked: 0 });

const port: ImpactInput = {
  usage: usage([row({ resource: 'olds', version: 'v1beta1' })]),
  servers: [
    { name: 'old', gitVersion: 'v1.36.3', discovered: true },
    { name: 'new', gitVersion: 'v1.37.2', discovered: true },
  ],
  routeTable: [
    { gvr: 'x.io/v1beta1/olds', servers: ['old', 'new'] },
    { gvr: 'x.io/v1/news', servers: ['new'] },
    { gvr: 'y.io/v1beta1/gones', servers: ['old', 'new'] },
  ],
};
const target = { release: 'v1.38', gitVersion: 'v1.38.0', gvrs: new Set(['x.io/v1/news']) };

function status(name: string, metrics?: Partial<ServerMetrics>): ServerStatus {
  return {
    name,
    ...(metrics
      ? {
          apiserverMetrics: {
            state: 'read',
            readAt: T0 + 100_000,
            requests: [],
            requestsTotal: 1,
            serverErrorsTotal: 0,
            notFoundTotal: 0,
            deprecatedApis: [],
            ...metrics,
          },
        }
      : {}),
  } as ServerStatus;
}

describe('impactReportOfSources', () => {
  it('says which source each finding comes from: the port, the cluster audit logs, and /metrics', () => {
    const cluster = usage(
      [
        row({ userAgent: 'cert-rotator/v0.3.1', identity: 'token-admin', resource: 'news', notFound: 5, count: 5 }),
        row({
          userAgent: 'ipam-controller/v0.4.0',
          identity: 'system:serviceaccount:kube-system:ipam',
          resource: 'olds',
          version: 'v1beta1',
        }),
      ],
      T0 - 60_000,
    );
    const report = impactReportOfSources(
      {
        port,
        cluster,
        statuses: [
          status('old', {
            deprecatedApis: [
              { group: 'y.io', version: 'v1beta1', resource: 'gones', subresource: '', removedRelease: '1.38' },
              // Covered by a client finding already: not repeated.
              { group: 'x.io', version: 'v1beta1', resource: 'olds', subresource: '', removedRelease: '1.38' },
            ],
          }),
          status('new'),
        ],
      },
      target,
      ['v1.38'],
      T0 + 120_000,
    );
    expect(impactReportSchema.parse(report)).toEqual(report);
    expect(report.sources).toEqual(['port', 'cluster-audit', 'metrics']);
    const rows = report.findings.map((f) => [f.source, f.client.name, `${f.group}/${f.version}/${f.resource}`, f.impact]);
    expect(rows).toEqual([
      ['cluster-audit', 'ipam-controller', 'x.io/v1beta1/olds', 'removed'],
      ['port', 'kubectl', 'x.io/v1beta1/olds', 'removed'],
      ['metrics', METRICS_CLIENT.name, 'y.io/v1beta1/gones', 'removed'],
      ['cluster-audit', 'cert-rotator', 'x.io/v1/news', 'skewed'],
    ]);
    const fromMetrics = report.findings.find((f) => f.source === 'metrics');
    expect(fromMetrics?.message).toBe(
      `${METRICS_CLIENT.name} requested y.io/v1beta1 gones from old: not served by v1.38 → 404 after the upgrade`,
    );
    expect(fromMetrics?.evidence.warnings).toEqual(['deprecated, removed in 1.38 (apiserver_requested_deprecated_apis)']);
    expect(report.clients).toBe(3);
    // The window reaches back to the older of the two sources' starts.
    expect(report.window.since).toBe(T0 - 60_000);
  });

  it('without a cluster source or a /metrics read, every finding is the port’s', () => {
    const report = impactReportOfSources({ port, statuses: [status('old'), status('new')] }, target, ['v1.38'], T0 + 120_000);
    expect(report.sources).toEqual(['port']);
    expect(report.findings.map((f) => f.source)).toEqual(['port']);
    expect(report.clients).toBe(1);
  });
});
