// Property: partial knowledge never gives a confident answer. For any log and any servers whose
// discovery is unknown, a request is counted local, not found or a false 404 only when what was known
// decides it — the same answer whatever the unknown servers really serve — and the outcomes,
// undetermined included, add up to the requests counted.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { auditOutcomes } from '../../contract/audit.js';
import { buildRouteTable } from '../routing/route-table.js';
import { judgeAuditRecord } from './classify.js';
import type { AuditRecord } from './event.js';
import { AuditTally } from './tally.js';

const SERVERS = ['s1', 's2', 's3'];
const GVRS = ['apps/v1/deployments', '/v1/pods', 'resource.k8s.io/v1/deviceclasses', 'certificates.k8s.io/v1/clustertrustbundles'];
const CODES = [200, 201, 401, 403, 404, 409, 500, 503, null];
const DECIDING = new Set(['local', 'notfound', 'false-404']);

const gvrOf = (key: string) => {
  const [group = '', version = '', resource = ''] = key.split('/');
  return { group, version, resource };
};

const record = (i: number, server: string, key: string, code: number | null, resource: boolean): AuditRecord => ({
  server,
  auditID: `id-${i}`,
  stage: 'ResponseComplete',
  verb: 'get',
  path: '/x',
  user: 'u',
  userAgent: 'a',
  target: resource ? { ...gvrOf(key), subresource: '', namespace: '', name: '' } : null,
  code,
  receivedAt: i,
  stageAt: i,
  sourceIP: '',
});

const arbitraries = {
  /** What every server really serves. */
  truth: fc.tuple(...SERVERS.map(() => fc.subarray(GVRS))),
  /** Which servers' discovery is unknown. */
  unknown: fc.subarray(SERVERS),
  log: fc.array(fc.tuple(fc.constantFrom(...SERVERS, 'elsewhere'), fc.constantFrom(...GVRS), fc.constantFrom(...CODES), fc.boolean()), {
    maxLength: 40,
  }),
};

describe('judging with partial knowledge (property)', () => {
  it('decides local, not found or false 404 only as full knowledge would, and the outcomes add up to the requests', () => {
    fc.assert(
      fc.property(arbitraries.truth, arbitraries.unknown, arbitraries.log, (truth, unknown, log) => {
        const full = buildRouteTable(SERVERS.map((name, i) => ({ name, gvrs: truth[i]!.map(gvrOf) })));
        const partial = buildRouteTable(
          SERVERS.map((name, i) => ({ name, gvrs: unknown.includes(name) ? undefined : truth[i]!.map(gvrOf) })),
        );
        const tally = new AuditTally();
        log.forEach(([server, key, code, resource], i) => {
          const r = record(i, server, key, code, resource);
          const known = judgeAuditRecord(r, partial);
          if (known.outcome && DECIDING.has(known.outcome)) expect(known.outcome).toBe(judgeAuditRecord(r, full).outcome);
          tally.add(r, known.outcome, () => [], 'today', known.reason);
        });
        const totals = tally.report().totals;
        const sum = auditOutcomes.reduce((n, o) => n + (totals.outcomes?.[o] ?? 0), 0);
        expect(sum).toBe(totals.requests);
        expect(totals.requests).toBe(log.length);
      }),
      { numRuns: 500 },
    );
  });
});
