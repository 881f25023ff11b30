// The audit webhook receiver over real TLS on 127.0.0.1 (a generated CA, verified by the senders):
// each server named by its bearer token or client certificate, EventList batches parsed as log lines
// are, and whatever cannot be used — a sender not allowed, a body that is not an EventList, an event
// that is not one — counted, named and answered, never fatal.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority, issueClientCertificate, issueServerCertificate, type PemPair } from '../../tls/certs.js';
import type { AuditRecord } from '../event.js';
import { startAuditWebhook, type AuditWebhook } from './receiver.js';
import { WebhookSenders } from './senders.js';
import type { WebhookCounters } from './counters.js';

async function exposition(counters: WebhookCounters): Promise<string> {
  const registry = new Registry();
  counters.register(registry);
  return registry.metrics();
}

const event = (auditID: string, stage = 'ResponseComplete', code = 404) => ({
  level: 'Metadata',
  auditID,
  stage,
  requestURI: '/apis/certificates.k8s.io/v1/podcertificaterequests',
  verb: 'list',
  user: { username: 'token-admin', groups: ['system:masters'] },
  userAgent: 'cert-rotator/v0.3.1',
  objectRef: { resource: 'podcertificaterequests', apiGroup: 'certificates.k8s.io', apiVersion: 'v1' },
  responseStatus: { metadata: {}, code },
  requestReceivedTimestamp: '2026-11-26T05:00:00.000000Z',
  stageTimestamp: '2026-11-26T05:00:00.001000Z',
});
const eventList = (items: unknown[]) => JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items });

describe('the audit webhook receiver', () => {
  let webhook: AuditWebhook;
  let caPem: string;
  let clientOfB: PemPair;
  let stranger: PemPair;
  let byHostName: PemPair;
  let unknownServer: PemPair;
  const records: AuditRecord[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-webhook-'));
    const ca = await createCertificateAuthority('audit-webhook-test-ca');
    const otherCa = await createCertificateAuthority('not-the-client-ca');
    caPem = ca.cert;
    const serving = await issueServerCertificate(ca, { commonName: 'peerscope-audit-webhook', hosts: ['127.0.0.1'] });
    clientOfB = await issueClientCertificate(ca, { commonName: 'apiserver-b' });
    stranger = await issueClientCertificate(otherCa, { commonName: 'apiserver-b' });
    byHostName = await issueClientCertificate(ca, { commonName: 'b' });
    unknownServer = await issueClientCertificate(ca, { commonName: 'apiserver-z' });
    writeFileSync(join(dir, 'a.token'), 'token-of-a\n');
    webhook = await startAuditWebhook({
      host: '127.0.0.1',
      port: 0,
      cert: serving.cert,
      key: serving.key,
      clientCa: ca.cert,
      senders: new WebhookSenders([{ server: 'apiserver-a', file: join(dir, 'a.token') }], () => [
        { name: 'apiserver-a', hostname: 'a' },
        { name: 'apiserver-b', hostname: 'b' },
      ]),
      onRecord: (r) => records.push(r),
      onProblem: (sender, reason, detail) => problems.push(`${sender}: ${reason}: ${detail}`),
    });
  });
  afterAll(async () => {
    await webhook?.close();
  });

  async function post(body: string, auth: { token?: string; cert?: PemPair; authorization?: string } = {}, method = 'POST') {
    const agent = new Agent({ connect: { ca: caPem, ...(auth.cert ? { cert: auth.cert.cert, key: auth.cert.key } : {}) } });
    try {
      const res = await request(`${webhook.url}/`, {
        method: method as 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}),
          ...(auth.authorization ? { authorization: auth.authorization } : {}),
        },
        ...(method === 'POST' ? { body } : {}),
      });
      return { status: res.statusCode, status_: (await res.body.json()) as { message: string } };
    } finally {
      await agent.close();
    }
  }

  it('takes an EventList from a server named by its token, or by its client certificate, each event as its own', async () => {
    const byToken = await post(eventList([event('1', 'RequestReceived'), event('1'), event('2', 'ResponseComplete', 200)]), {
      token: 'token-of-a',
    });
    expect(byToken.status).toBe(200);
    const byCert = await post(eventList([event('3')]), { cert: clientOfB });
    expect(byCert.status).toBe(200);
    expect(records.map((r) => [r.server, r.auditID, r.stage, r.code])).toEqual([
      ['apiserver-a', '1', 'RequestReceived', 404],
      ['apiserver-a', '1', 'ResponseComplete', 404],
      ['apiserver-a', '2', 'ResponseComplete', 200],
      ['apiserver-b', '3', 'ResponseComplete', 404],
    ]);
    expect(records[1]).toMatchObject({
      userAgent: 'cert-rotator/v0.3.1',
      target: { group: 'certificates.k8s.io', resource: 'podcertificaterequests' },
    });
    const text = await exposition(webhook.counters);
    expect(text).toContain('peerscope_cluster_webhook_batches_total{server="apiserver-a",server_id="apiserver-a"} 1');
    expect(text).toContain('peerscope_cluster_webhook_events_total{server="apiserver-a",server_id="apiserver-a"} 3');
    expect(text).toContain('peerscope_cluster_webhook_events_total{server="apiserver-b",server_id="apiserver-b"} 1');
  });

  it('refuses, counts and names a sender not allowed, a body that is not an EventList and an event that is not one; then goes on', async () => {
    const before = records.length;
    expect((await post(eventList([event('9')]), { token: 'wrong' })).status).toBe(401);
    expect((await post(eventList([event('9')]), {})).status).toBe(401);
    expect((await post(eventList([event('9')]), { cert: stranger })).status).toBe(401);
    const notList = await post(JSON.stringify({ kind: 'Event', apiVersion: 'audit.k8s.io/v1' }), { token: 'token-of-a' });
    expect(notList).toMatchObject({ status: 400, status_: { message: 'not an audit.k8s.io/v1 EventList' } });
    expect((await post('{"kind":"EventList",', { token: 'token-of-a' })).status).toBe(400);
    expect((await post('', { token: 'token-of-a' }, 'GET')).status).toBe(405);
    const mixed = await post(eventList([event('4'), { auditID: 5 }, 'text', event('6')]), { token: 'token-of-a' });
    expect(mixed.status).toBe(200);
    expect(records.slice(before).map((r) => r.auditID)).toEqual(['4', '6']);
    const text = await exposition(webhook.counters);
    expect(text).toContain('peerscope_cluster_webhook_problems_total{sender="127.0.0.1",reason="sender not allowed"} 3');
    expect(text).toContain('peerscope_cluster_webhook_problems_total{sender="apiserver-a",reason="not an EventList"} 1');
    expect(text).toContain('peerscope_cluster_webhook_problems_total{sender="apiserver-a",reason="not JSON"} 1');
    expect(text).toContain('peerscope_cluster_webhook_problems_total{sender="apiserver-a",reason="not POST"} 1');
    expect(text).toContain('peerscope_cluster_webhook_problems_total{sender="apiserver-a",reason="event not usable"} 2');
    const accepts = 'post with a bearer token (--audit-webhook-token) or a client certificate signed by --audit-webhook-client-ca';
    expect(problems).toContain(`127.0.0.1: sender not allowed: its bearer token names no server: ${accepts}`);
    expect(problems).toContain(`127.0.0.1: sender not allowed: no bearer token and no client certificate: ${accepts}`);
    expect(
      problems.some((p) =>
        p.startsWith('127.0.0.1: sender not allowed: its client certificate was not signed by --audit-webhook-client-ca'),
      ),
    ).toBe(true);
    expect(problems).toContain('apiserver-a: event not usable: item 2: not a JSON object');
  });

  it('a client certificate must name a known server (host name or lease name), else 403; Basic auth is told what is taken', async () => {
    const before = records.length;
    expect((await post(eventList([event('7')]), { cert: byHostName })).status).toBe(200);
    expect(records.slice(before).map((r) => r.server)).toEqual(['apiserver-b']);
    const unknown = await post(eventList([event('8')]), { cert: unknownServer });
    expect(unknown).toMatchObject({
      status: 403,
      status_: { message: "not allowed to post audit events: its client certificate's common name names no known server" },
    });
    const basic = await post(eventList([event('8')]), { authorization: `Basic ${Buffer.from('a:secret').toString('base64')}` });
    expect(basic).toMatchObject({
      status: 401,
      status_: {
        message:
          'not allowed to post audit events: Basic authentication is not taken: post with a bearer token (--audit-webhook-token) or a client certificate signed by --audit-webhook-client-ca',
      },
    });
    expect(records.slice(before).map((r) => r.auditID)).toEqual(['7']);
    expect(await exposition(webhook.counters)).toContain(
      'peerscope_cluster_webhook_problems_total{sender="127.0.0.1",reason="sender not allowed"} 5',
    );
  });
});
