// Which release a server ran when, from its own requests (and a running core's probes), and which
// route table an event is judged by: that release's (the catalog's) across a minor release, else today's.
import { describe, expect, it } from 'vitest';
import { buildRouteTable } from '../routing/route-table.js';
import { catalogEntries, loadRelease } from '../releases/index.js';
import type { AuditRecord } from './event.js';
import { ReleaseTimeline, TimelineJudge } from './timeline.js';

const gvrsOf = (release: string) =>
  [...catalogEntries(loadRelease(release))].map((e) => ({ group: e.group, version: e.version, resource: e.resource.name }));
const PCR = { group: 'certificates.k8s.io', version: 'v1', resource: 'podcertificaterequests' };

function record(server: string, at: number, own?: string): AuditRecord {
  return {
    server,
    auditID: `${server}-${at}`,
    stage: 'ResponseComplete',
    verb: 'get',
    path: '/api/v1/namespaces/default',
    user: own ? 'system:apiserver' : 'kubernetes-admin',
    userAgent: own ? `kube-apiserver/${own} (linux/amd64) kubernetes/0a1b2c3` : 'kubectl/v1.36.3',
    target: { group: '', version: 'v1', resource: 'namespaces', subresource: '', namespace: '', name: 'default' },
    code: 200,
    receivedAt: at,
    stageAt: at,
    sourceIP: '',
  };
}

describe('ReleaseTimeline', () => {
  it('keeps a mark where the release changed, in time order whatever the order noted', () => {
    const t = new ReleaseTimeline();
    t.note('b', 300, 'v1.37.2');
    t.note('b', 100, 'v1.36.3');
    t.note('b', 200, 'v1.36.3');
    t.noteRecord(record('b', 400, 'v1.37.2'));
    // Another user's agent is not the server's word.
    t.noteRecord({ ...record('b', 150), userAgent: 'kube-apiserver/v1.99.0' });
    expect([50, 100, 250, 299, 300, 1_000].map((at) => t.releaseAt('b', at))).toEqual([
      undefined,
      'v1.36.3',
      'v1.36.3',
      'v1.36.3',
      'v1.37.2',
      'v1.37.2',
    ]);
    expect(t.releaseAt('a', 1_000)).toBeUndefined();
  });
});

describe('TimelineJudge', () => {
  const today = buildRouteTable([
    { name: 'a', gvrs: gvrsOf('v1.36-dev') },
    { name: 'b', gvrs: gvrsOf('v1.37-dev') },
    { name: 'c', gvrs: gvrsOf('v1.37-dev') },
  ]);
  const releasesToday: Record<string, string> = { a: 'v1.36.0-dev', b: 'v1.37.0-dev', c: 'v1.37.0-dev' };

  it("judges by the catalog's release of the time across a minor release, by today's otherwise, and counts both", () => {
    const timeline = new ReleaseTimeline();
    timeline.note('b', 100, 'v1.36.3');
    timeline.note('b', 500, 'v1.37.2');
    const judge = new TimelineJudge(timeline, (s) => releasesToday[s]);
    const then = judge.tableFor(record('b', 200), today);
    expect(then.judgedBy).toBe('timeline');
    expect(then.table!.serves('b', PCR)).toBe(false);
    expect(then.table!.serversFor(PCR)).toEqual(['c']);
    // Built once per release and table.
    expect(judge.tableFor(record('b', 300), today).table).toBe(then.table);
    // After the upgrade, and before anything is known: today's.
    expect(judge.tableFor(record('b', 600), today)).toEqual({ table: today, judgedBy: 'today' });
    expect(judge.tableFor(record('b', 50), today)).toEqual({ table: today, judgedBy: 'today' });
    // A patch release of today's minor: today's discovery says more than the catalog.
    timeline.note('a', 100, 'v1.36.3');
    expect(judge.tableFor(record('a', 200), today).judgedBy).toBe('today');
    expect(judge.counts).toEqual({ timeline: 2, today: 3 });
  });

  it("takes today's when the catalog does not know the release of the time", () => {
    const timeline = new ReleaseTimeline();
    timeline.note('b', 100, 'v1.29.4');
    const judge = new TimelineJudge(timeline, (s) => releasesToday[s]);
    expect(judge.tableFor(record('b', 200), today)).toEqual({ table: today, judgedBy: 'today' });
  });
});
