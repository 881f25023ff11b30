import { describe, expect, it } from 'vitest';
import { clientNameOf, impactReportSchema, type ClientUsage, type UsageRow } from '../../contract/impact.js';
import { formatImpactText } from './format.js';
import { classify, impactReport, type ImpactInput } from './report.js';
import { catalogTarget, defaultTargetName } from './targets.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const KCM = 'kube-controller-manager/v1.36.0 (linux/amd64) kubernetes/abc123/system:serviceaccount:kube-system:resourcequota-controller';

function row(over: Partial<UsageRow>): UsageRow {
  return {
    userAgent: KCM,
    identity: 'admin',
    group: 'x.io',
    version: 'v1',
    resource: 'things',
    verb: 'list',
    count: 24,
    notFound: 0,
    warned: 0,
    warnings: [],
    firstAt: T0,
    lastAt: T0 + 110_000,
    minutes: [
      { at: T0, count: 12 },
      { at: T0 + 60_000, count: 12 },
    ],
    ...over,
  };
}

function input(rows: UsageRow[]): ImpactInput {
  const usage: ClientUsage = { since: T0, at: T0 + 120_000, windowMinutes: 60, rows, untracked: 0 };
  return {
    usage,
    servers: [
      { name: 's1', gitVersion: 'v1.36.0', discovered: true },
      { name: 's2', gitVersion: 'v1.37.0', discovered: true },
      { name: 's3', discovered: false },
    ],
    routeTable: [
      { gvr: 'x.io/v1/things', servers: ['s1', 's2'] },
      { gvr: 'x.io/v1beta1/things', servers: ['s1', 's2'] },
      { gvr: 'x.io/v1alpha1/olds', servers: ['s1'] },
      { gvr: '/v1/pods', servers: ['s1', 's2'] },
    ],
  };
}

const target = { release: 'v1.37', gitVersion: 'v1.37.0', gvrs: new Set(['x.io/v1/things', 'x.io/v1/news', '/v1/pods']) };

describe('impactReport', () => {
  it('classifies each client × GVR, most severe first, in plain words', () => {
    const report = impactReport(
      input([
        row({ version: 'v1beta1' }),
        row({ version: 'v1beta1', verb: 'watch', count: 2, minutes: [{ at: T0, count: 2 }] }),
        row({ group: 'x.io', version: 'v1alpha1', resource: 'olds', userAgent: 'old-operator/0.9', identity: 'token:0a1b2c3d' }),
        row({ resource: 'news', notFound: 5, userAgent: 'kubectl/v1.37.0 (linux/amd64) kubernetes/def' }),
        row({ warned: 3, warnings: ['x.io/v1 Thing is deprecated'] }),
        row({ group: '', version: 'v1', resource: 'pods' }),
      ]),
      target,
      ['v1.36', 'v1.37'],
    );
    expect(impactReportSchema.parse(report)).toEqual(report);
    expect(report.findings.map((f) => [f.impact, f.client.name, `${f.group}/${f.version}/${f.resource}`])).toEqual([
      ['removed', 'kube-controller-manager (resourcequota-controller)', 'x.io/v1beta1/things'],
      ['removed', 'old-operator', 'x.io/v1alpha1/olds'],
      ['deprecated', 'kube-controller-manager (resourcequota-controller)', 'x.io/v1/things'],
      ['target-only', 'kubectl', 'x.io/v1/news'],
    ]);
    const [removed, old, deprecated, targetOnly] = report.findings;
    expect(removed!.message).toBe(
      'kube-controller-manager (resourcequota-controller) lists x.io/v1beta1 things 12 times a minute and watches it about once a minute: not served by v1.37 → 404 after the upgrade',
    );
    expect(removed!.verbs).toEqual([
      { verb: 'list', count: 24, perMinute: 12 },
      { verb: 'watch', count: 2, perMinute: 1 },
    ]);
    expect(old!.evidence).toMatchObject({ servedNowBy: ['s1'], notServedNowBy: ['s2'], servedByTarget: false });
    expect(deprecated!.message).toContain('the apiserver warns "x.io/v1 Thing is deprecated"');
    expect(targetOnly!.message).toContain('served only by v1.37 → 404 now (5 so far), answered after the upgrade');
    expect(report.clients).toBe(3);
    expect(report.window).toEqual({ since: T0, until: T0 + 120_000, minutes: 2 });
  });

  it('calls a GVR only some current servers serve skewed when the target keeps it', () => {
    const report = impactReport(
      input([row({ version: 'v1alpha1', resource: 'olds' })]),
      { ...target, gvrs: new Set([...target.gvrs, 'x.io/v1alpha1/olds']) },
      [],
    );
    expect(report.findings[0]!.impact).toBe('skewed');
    expect(report.findings[0]!.message).toContain('served by s1 but not s2 → false 404s from it while the rollout runs');
  });

  it('names a client on an older version of a resource a newer version serves too: it will have to move (issue 45)', () => {
    // The target keeps v1beta1 things but serves v1 too: not removed, superseded; v1 users are not.
    const keeps = { ...target, gvrs: new Set([...target.gvrs, 'x.io/v1beta1/things']) };
    const report = impactReport(
      input([row({ version: 'v1beta1' }), row({ userAgent: 'kubectl/v1.37.0 (linux/amd64) kubernetes/def' })]),
      keeps,
      [],
    );
    expect(impactReportSchema.parse(report)).toEqual(report);
    expect(report.findings.map((f) => [f.impact, f.client.name, f.version])).toEqual([
      ['superseded', 'kube-controller-manager (resourcequota-controller)', 'v1beta1'],
    ]);
    expect(report.findings[0]!.evidence.newestVersion).toBe('v1');
    expect(report.findings[0]!.message).toBe(
      'kube-controller-manager (resourcequota-controller) lists x.io/v1beta1 things 12 times a minute: x.io/v1 serves it too → it will have to move there before v1beta1 is removed',
    );
    expect(formatImpactText(report)).toContain('A newer version serves the same resource: will have to move (1)');
    // Removed outranks it: a version the target drops is named removed, with the newest beside it.
    const removed = impactReport(input([row({ version: 'v1beta1' })]), target, []).findings[0]!;
    expect([removed.impact, removed.evidence.newestVersion]).toEqual(['removed', 'v1']);
  });

  it('names the servers by their display names in words and the heading; the evidence keeps their identities', () => {
    const base = input([row({ version: 'v1alpha1', resource: 'olds' })]);
    const shown: Record<string, string> = { s1: 'cp-1', s2: 'cp-1 (q3ovcb)' };
    const report = impactReport(
      { ...base, servers: base.servers.map((s) => (shown[s.name] ? { ...s, displayName: shown[s.name] } : s)) },
      { ...target, gvrs: new Set([...target.gvrs, 'x.io/v1alpha1/olds']) },
      [],
    );
    expect(report.findings[0]!.message).toContain('served by cp-1 but not cp-1 (q3ovcb) → false 404s from it');
    expect(report.findings[0]!.evidence).toMatchObject({ servedNowBy: ['s1'], notServedNowBy: ['s2'] });
    expect(report.current).toEqual([
      { name: 's1', displayName: 'cp-1', gitVersion: 'v1.36.0' },
      { name: 's2', displayName: 'cp-1 (q3ovcb)', gitVersion: 'v1.37.0' },
      { name: 's3' },
    ]);
    expect(formatImpactText(report).split('\n')[0]).toMatch(
      /^Upgrade impact: v1\.36\.0, v1\.37\.0, \? \(cp-1, cp-1 \(q3ovcb\), s3\) → v1\.37,/,
    );
  });
});

describe('classify', () => {
  it('prefers removed over superseded over skewed over deprecated over target-only', () => {
    expect(classify(true, true, false, true, true)).toBe('removed');
    expect(classify(true, true, true, true, true)).toBe('superseded');
    expect(classify(false, false, true, false, true)).toBe('target-only');
    expect(classify(true, true, false, true)).toBe('removed');
    expect(classify(true, true, true, true)).toBe('skewed');
    expect(classify(true, false, true, true)).toBe('deprecated');
    expect(classify(false, false, true, false)).toBe('target-only');
    expect(classify(true, false, true, false)).toBeUndefined();
    expect(classify(false, false, false, false)).toBeUndefined();
  });
});

describe('targets', () => {
  it('defaults to the next catalog release above the current servers', () => {
    expect(defaultTargetName(['v1.36.0-dev', 'v1.36.0-dev'])).toBe('v1.37-dev');
    expect(defaultTargetName(['v1.37.0-dev'])).toBe('v1.37-dev');
    expect(catalogTarget('v1.37-dev').gvrs.has('/v1/pods')).toBe(true);
    expect(() => catalogTarget('v9.99')).toThrow(/--to: unknown release "v9.99"/);
  });
});

describe('clientNameOf', () => {
  it('names the program and, for client-go controllers, the controller', () => {
    expect(clientNameOf(KCM)).toBe('kube-controller-manager (resourcequota-controller)');
    expect(clientNameOf('kubectl/v1.36.0 (linux/amd64) kubernetes/abc')).toBe('kubectl');
    expect(clientNameOf('Go-http-client/1.1')).toBe('Go-http-client');
    expect(clientNameOf('')).toBe('(no user agent)');
  });
});
