import { describe, expect, it } from 'vitest';
import { buildRouteTable } from '../routing/route-table.js';
import { classifyAuditRecord, judgeAuditRecord } from './classify.js';
import type { AuditRecord } from './event.js';

// old serves apps/v1 deployments; new also serves resource.k8s.io/v1 deviceclasses.
const table = buildRouteTable([
  { name: 'old', gvrs: [{ group: 'apps', version: 'v1', resource: 'deployments' }] },
  {
    name: 'new',
    gvrs: [
      { group: 'apps', version: 'v1', resource: 'deployments' },
      { group: 'resource.k8s.io', version: 'v1', resource: 'deviceclasses' },
    ],
  },
]);

function record(server: string, group: string, resource: string, code: number): AuditRecord {
  return {
    server,
    auditID: `${server}-${group}-${resource}-${code}`,
    stage: 'ResponseComplete',
    verb: 'get',
    path: `/apis/${group}/v1/${resource}`,
    user: 'system:serviceaccount:kube-system:gc',
    userAgent: 'kube-controller-manager/v1.36.3',
    target: { group, version: 'v1', resource, subresource: '', namespace: '', name: '' },
    code,
    receivedAt: 0,
    stageAt: 0,
    sourceIP: '',
  };
}

describe('classifyAuditRecord', () => {
  it('a GVR the server serves is local, whatever it answered', () => {
    expect(classifyAuditRecord(record('old', 'apps', 'deployments', 404), table)).toBe('local');
  });

  it('a 404 for a GVR only a peer serves is a false 404; a 503 the peer proxy failing; a success a reroute', () => {
    expect(classifyAuditRecord(record('old', 'resource.k8s.io', 'deviceclasses', 404), table)).toBe('false-404');
    expect(classifyAuditRecord(record('old', 'resource.k8s.io', 'deviceclasses', 503), table)).toBe('unavailable');
    expect(classifyAuditRecord(record('old', 'resource.k8s.io', 'deviceclasses', 200), table)).toBe('rerouted');
  });

  it('a 404 for what nobody serves is real', () => {
    expect(classifyAuditRecord(record('old', 'example.io', 'widgets', 404), table)).toBe('notfound');
  });

  it('a success for what the table says nobody serves is undetermined: the table is older than the server', () => {
    expect(judgeAuditRecord(record('new', 'example.io', 'widgets', 201), table)).toEqual({
      outcome: 'undetermined',
      reason: 'discovery-stale',
    });
  });

  // With `dark` in the table and its discovery unknown (it is being upgraded), a GVR only it may serve is open.
  const partial = buildRouteTable([
    { name: 'old', gvrs: [{ group: 'apps', version: 'v1', resource: 'deployments' }] },
    { name: 'dark', gvrs: undefined },
  ]);

  it("a 404 for what no known server serves is undetermined while a server's discovery is unknown, never a real 404", () => {
    expect(judgeAuditRecord(record('old', 'resource.k8s.io', 'deviceclasses', 404), partial)).toEqual({
      outcome: 'undetermined',
      reason: 'discovery-unread',
    });
    expect(classifyAuditRecord(record('old', 'resource.k8s.io', 'deviceclasses', 200), partial)).toBe('undetermined');
    // What the known server serves stays decided.
    expect(classifyAuditRecord(record('old', 'apps', 'deployments', 404), partial)).toBe('local');
  });

  it('a 503 for a GVR the server lacks is its peer proxy failing, whatever is known of the peers', () => {
    expect(classifyAuditRecord(record('old', 'resource.k8s.io', 'deviceclasses', 503), partial)).toBe('unavailable');
  });

  it('a server of unknown discovery, or none of the judged ones, is undetermined', () => {
    expect(judgeAuditRecord(record('dark', 'apps', 'deployments', 200), partial)).toEqual({
      outcome: 'undetermined',
      reason: 'discovery-unread',
    });
    expect(judgeAuditRecord(record('other', 'apps', 'deployments', 200), partial)).toEqual({
      outcome: 'undetermined',
      reason: 'server-unknown',
    });
  });

  it('401, 403 and 429 come before routing', () => {
    expect(classifyAuditRecord(record('old', 'resource.k8s.io', 'deviceclasses', 403), table)).toBe('rejected');
  });
});
