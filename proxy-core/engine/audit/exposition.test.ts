// Per-client series are bounded: a client chooses its user agent and user, so past MAX_CLIENT_SERIES
// clients the rest share one "other" series, and no count is lost.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { AuditRecord } from './event.js';
import { AuditCounters, MAX_CLIENT_SERIES } from './exposition.js';

const deprecatedCall = (client: number): AuditRecord => ({
  server: 'apiserver-a',
  auditID: `id-${client}`,
  stage: 'ResponseComplete',
  verb: 'list',
  path: '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas',
  user: `user-${client}`,
  userAgent: `agent-${client}/v1`,
  target: { group: 'flowcontrol.apiserver.k8s.io', version: 'v1beta3', resource: 'flowschemas', subresource: '', namespace: '', name: '' },
  code: 200,
  receivedAt: client,
  stageAt: client,
  sourceIP: '',
  deprecated: { removedRelease: '1.32' },
});

describe('AuditCounters: peerscope_cluster_deprecated_requests_total', () => {
  it(`keeps a series per client for the first ${MAX_CLIENT_SERIES} clients and folds the rest into one "other" series`, async () => {
    const counters = new AuditCounters();
    const clients = MAX_CLIENT_SERIES + 30;
    for (let c = 0; c < clients; c++) for (let n = 0; n <= c % 3; n++) counters.add(deprecatedCall(c), 'local');
    // A client already given its own series keeps it.
    counters.add(deprecatedCall(0), 'local');
    const registry = new Registry();
    counters.register(registry);
    const series = (await registry.metrics()).split('\n').filter((l) => l.startsWith('peerscope_cluster_deprecated_requests_total{'));
    expect(series).toHaveLength(MAX_CLIENT_SERIES + 1);
    const other = series.filter((l) => l.includes('user_agent="other",user="other"'));
    expect(other).toHaveLength(1);
    const total = series.reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
    let sent = 1;
    for (let c = 0; c < clients; c++) sent += (c % 3) + 1;
    expect(total).toBe(sent);
    expect(series.some((l) => l.includes('user_agent="agent-0/v1",user="user-0"') && l.endsWith(' 2'))).toBe(true);
  });
});
