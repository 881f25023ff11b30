// The cluster source's families bound the labels a client chooses: past MAX_CLIENTS_EXPOSED clients
// (user agent and user) the deprecated-API series keep the busiest and count the rest as `other`.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { AuditRecord } from './event.js';
import { AuditCounters, MAX_CLIENTS_EXPOSED, OTHER_CLIENT } from './exposition.js';

function deprecatedCall(userAgent: string, user: string): AuditRecord {
  return {
    server: 'apiserver-a',
    auditID: `${userAgent}/${user}`,
    stage: 'ResponseComplete',
    verb: 'list',
    path: '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas',
    user,
    userAgent,
    target: {
      group: 'flowcontrol.apiserver.k8s.io',
      version: 'v1beta3',
      resource: 'flowschemas',
      namespace: '',
      name: '',
      subresource: '',
    },
    code: 200,
    receivedAt: 0,
    stageAt: 0,
    sourceIP: '10.0.0.9',
    deprecated: { removedRelease: '1.32' },
  };
}

async function deprecatedSeries(counters: AuditCounters): Promise<string[]> {
  const registry = new Registry();
  counters.register(registry);
  return (await registry.metrics()).split('\n').filter((l) => l.startsWith('peerscope_cluster_deprecated_requests_total{'));
}

describe('peerscope_cluster_deprecated_requests_total: the clients it names are bounded', () => {
  it('keeps every client up to the bound', async () => {
    const counters = new AuditCounters();
    for (let i = 0; i < MAX_CLIENTS_EXPOSED; i++) counters.add(deprecatedCall(`tool-${i}/v1`, 'kubernetes-admin'), 'local');
    const series = await deprecatedSeries(counters);
    expect(series).toHaveLength(MAX_CLIENTS_EXPOSED);
    expect(series.join('\n')).not.toContain(`user_agent="${OTHER_CLIENT}"`);
  });

  it('past it, keeps the busiest clients and counts the rest as one, every request still counted', async () => {
    const counters = new AuditCounters();
    // The busy clients: 3 calls each; then 2 × the bound clients that each make one call, with user names of their own.
    for (let i = 0; i < MAX_CLIENTS_EXPOSED - 1; i++)
      for (let n = 0; n < 3; n++) counters.add(deprecatedCall(`operator-${i}/v2`, `system:serviceaccount:ops:op-${i}`), 'local');
    for (let i = 0; i < 2 * MAX_CLIENTS_EXPOSED; i++) counters.add(deprecatedCall(`curl/8.${i}`, `user-${i}`), 'local');
    const series = await deprecatedSeries(counters);
    // The busiest 99 named, and one more kept of the one-call clients (ties go to the first counted); the rest in `other`.
    expect(series).toHaveLength(MAX_CLIENTS_EXPOSED + 1);
    expect(series.filter((l) => l.includes('user_agent="operator-'))).toHaveLength(MAX_CLIENTS_EXPOSED - 1);
    const other = series.find((l) => l.includes(`user_agent="${OTHER_CLIENT}",user="${OTHER_CLIENT}"`));
    expect(other).toMatch(new RegExp(` ${2 * MAX_CLIENTS_EXPOSED - 1}$`));
    const total = series.reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    expect(total).toBe(3 * (MAX_CLIENTS_EXPOSED - 1) + 2 * MAX_CLIENTS_EXPOSED);
  });
});
