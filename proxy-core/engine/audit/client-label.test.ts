// The clients of the audit tables, from a real audit log: two kube-controller-manager controllers (the
// simulator's traffic has these two), whose user agents differ only past the 60th character, print as two clients.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditLog, PODS, PODS_PATH } from '../../test/audit-events.js';
import { clientLabel, clientLabels, CLIENT_WIDTH, cutUserAgent } from './client-label.js';
import { formatAuditText } from './format.js';
import { NO_JUDGEMENT } from './judge.js';
import { readAuditLogs } from './read-audit.js';

const controllers = [
  'kube-controller-manager/v1.36.0 (linux/amd64) kubernetes/5f3c9a1/system:serviceaccount:kube-system:namespace-controller',
  'kube-controller-manager/v1.36.0 (linux/amd64) kubernetes/5f3c9a1/system:serviceaccount:kube-system:generic-garbage-collector',
];

describe('client labels', () => {
  it('cut a long user agent in the middle: its product and release, then its end', () => {
    expect(controllers.map(cutUserAgent)).toEqual([
      'kube-controller-manager/v1.36.0 …namespace-controller',
      'kube-controller-manager/v1.36.0 …generic-garbage-collector',
    ]);
    for (const cut of controllers.map(cutUserAgent)) expect(cut.length).toBeLessThanOrEqual(CLIENT_WIDTH);
    expect(cutUserAgent('kubectl/v1.36.0 (linux/amd64) kubernetes/5f3c9a1')).toBe('kubectl/v1.36.0 (linux/amd64) kubernetes/5f3c9a1');
    // No product token to keep: half the width from the start.
    expect(cutUserAgent('x'.repeat(40) + 'y'.repeat(40))).toBe(`${'x'.repeat(30)}…${'y'.repeat(29)}`);
    expect(clientLabel('', '')).toBe('(no user agent) (no user)');
  });

  it('print whole the clients a cut would print alike, and only those', () => {
    const middle = (m: string) => `operator/v1 ${'a'.repeat(30)}${m}${'z'.repeat(50)}`;
    const clients = [
      { userAgent: middle('1'), user: 'ops' },
      { userAgent: middle('2'), user: 'ops' },
      { userAgent: middle('1'), user: 'dev' },
      { userAgent: controllers[0]!, user: 'ops' },
    ];
    expect(clientLabels(clients)).toEqual([
      `${middle('1')} (ops)`,
      `${middle('2')} (ops)`,
      `${cutUserAgent(middle('1'))} (dev)`,
      `${cutUserAgent(controllers[0]!)} (ops)`,
    ]);
  });

  it("audit's Per client table: the two controllers, 17 and 5 requests, are two rows that read differently", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'client-label-')), 'sim-1.log');
    const list = (userAgent: string, n: number) =>
      Array.from({ length: n }, () => ({ verb: 'list', path: PODS_PATH, ref: PODS, code: 200, userAgent, user: 'sim-admin' }));
    writeFileSync(file, auditLog([...list(controllers[0]!, 17), ...list(controllers[1]!, 5)]));
    const report = await readAuditLogs([{ server: 'sim-1', file }], { judgement: NO_JUDGEMENT });
    const text = formatAuditText(report, 20);
    const perClient = text.slice(text.indexOf('Per client'), text.indexOf('Per GVR')).split('\n');
    console.log(perClient.join('\n'));
    const rows = perClient.filter((l) => l.includes('kube-controller-manager/'));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^ {2}kube-controller-manager\/v1\.36\.0 …namespace-controller \(sim-admin\) +17 /);
    expect(rows[1]).toMatch(/^ {2}kube-controller-manager\/v1\.36\.0 …generic-garbage-collector \(sim-admin\) +5 /);
  });
});
