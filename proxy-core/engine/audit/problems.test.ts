// Bad audit input counted per server, source and reason; the first few named; told once per file and reason.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { AuditProblems, PROBLEMS_NAMED, RETOLD_EVERY } from './problems.js';

/** The series the problems add to a registry, as /.peerscope/metrics prints them. */
async function series(problems: AuditProblems): Promise<string[]> {
  const registry = new Registry();
  problems.register(registry);
  return (await registry.metrics()).split('\n').filter((l) => l.startsWith('peerscope_cluster_audit_problems_total{'));
}

const line = (n: number, reason = 'not JSON') => ({
  server: 'apiserver-a',
  source: 'audit-log' as const,
  reason,
  where: `/logs/a.log:${n}`,
  detail: `not JSON: value expected at byte ${n}`,
  input: '/logs/a.log',
});

describe('AuditProblems', () => {
  it('tells one line per file and reason, then every RETOLD_EVERY-th with its count; names the first few; counts all', async () => {
    const told: string[] = [];
    const problems = new AuditProblems((l) => told.push(l));
    for (let n = 1; n <= RETOLD_EVERY; n++) problems.add(line(n));
    problems.add(line(1, 'invalid audit event'));
    expect(told).toEqual([
      'peerscope: audit log /logs/a.log (server apiserver-a): not JSON: /logs/a.log:1: not JSON: value expected at byte 1 (the rest is read; every one is counted in /.peerscope/metrics)',
      `peerscope: audit log /logs/a.log (server apiserver-a): not JSON: ${RETOLD_EVERY} so far (the latest at /logs/a.log:${RETOLD_EVERY})`,
      'peerscope: audit log /logs/a.log (server apiserver-a): invalid audit event: /logs/a.log:1: not JSON: value expected at byte 1 (the rest is read; every one is counted in /.peerscope/metrics)',
    ]);
    const summary = problems.summary();
    expect(summary.count).toBe(RETOLD_EVERY + 1);
    expect(summary.first).toHaveLength(PROBLEMS_NAMED);
    expect(await series(problems)).toContain(
      `peerscope_cluster_audit_problems_total{server="apiserver-a",server_id="apiserver-a",source="audit-log",reason="not JSON"} ${RETOLD_EVERY}`,
    );
  });

  it('a webhook sender is counted and named but told by the receiver’s own log, and nothing counted is no series', async () => {
    const told: string[] = [];
    const problems = new AuditProblems((l) => told.push(l));
    expect(await series(problems)).toEqual([]);
    problems.add({ server: 'a', source: 'audit-webhook', reason: 'not JSON', where: 'a posted batch', detail: 'not JSON', input: 'a' });
    expect(told).toEqual([]);
    expect(problems.summary().first[0]).toMatchObject({ server: 'a', source: 'audit-webhook' });
  });
});
