import { describe, expect, it } from 'vitest';
import { buildRouteTable } from '../../routing/route-table.js';
import type { AuditRecord } from '../event.js';
import { AuditCounters } from '../exposition.js';
import { countPostedEvents } from './count-posted.js';

const table = buildRouteTable([
  { name: 'old', gvrs: [] },
  { name: 'new', gvrs: [{ group: 'resource.k8s.io', version: 'v1', resource: 'deviceclasses' }] },
]);

const falseNotFound = (auditID: string, stage: AuditRecord['stage']): AuditRecord => ({
  server: 'old',
  auditID,
  stage,
  verb: 'list',
  path: '/apis/resource.k8s.io/v1/deviceclasses',
  user: 'system:serviceaccount:kube-system:resourceclaim-controller',
  userAgent: 'kube-controller-manager/v1.36.3',
  target: { group: 'resource.k8s.io', version: 'v1', resource: 'deviceclasses', subresource: '', namespace: '', name: '' },
  code: stage === 'ResponseComplete' ? 404 : null,
  receivedAt: 0,
  stageAt: 0,
  sourceIP: '',
});

describe('countPostedEvents', () => {
  it('counts each posted request once, when it ends, and hands it with its outcome to the cluster source', () => {
    const seen: string[] = [];
    const count = countPostedEvents(
      new AuditCounters(),
      () => table,
      (r, o) => seen.push(`${r.auditID} ${o}`),
    );
    count(falseNotFound('a', 'RequestReceived'));
    count(falseNotFound('a', 'ResponseComplete'));
    count(falseNotFound('a', 'ResponseComplete')); // the same batch posted twice
    count(falseNotFound('b', 'ResponseComplete'));
    expect(seen).toEqual(['a false-404', 'b false-404']);
  });
});
