// The upgrade-impact report attributes an apiserver's deprecation warnings to the client that got
// them: two clients call the same GVR through the real port in front of a stand-in apiserver that
// answers lists with `Warning: 299 - "…"`; only the one that listed is said to be warned, each under
// its own identity (a hash of its token, or the port's kubeconfig user), and no token leaves the port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { impactReportSchema, type ImpactReport } from '../contract/impact.js';
import { createCore, type Core } from '../engine/core.js';
import { shortHash } from '../engine/telemetry/client-identity.js';
import { impactInputOf } from '../engine/impact/of-core.js';
import { impactReport } from '../engine/impact/report.js';
import { Agent, request } from '../engine/upstream/undici.js';
import { startFakeApiserver, THINGS_WARNING, type FakeApiserver } from './fake-apiserver.js';

const OPERATOR_UA = 'thing-operator/v0.9.1 (linux/amd64) kubernetes/4f1e2d3/thing-controller';
const KUBECTL_UA = 'kubectl/v1.37.0 (linux/amd64) kubernetes/9a8b7c6';
const OPERATOR_TOKEN = 'operator-token-that-must-never-leave-the-port';

describe('deprecation warnings in the impact report', () => {
  let fake: FakeApiserver;
  let core: Core;
  let base: string;
  const agent = new Agent();

  beforeAll(async () => {
    fake = await startFakeApiserver(10);
    core = createCore({ servers: [{ name: 'a', url: fake.url }], listen: { port: 0 }, ownIdentity: 'kubernetes-admin' });
    base = (await core.start()).url;
  });
  afterAll(async () => {
    await agent.close();
    await core?.close(0);
    await fake?.close();
  });

  async function call(
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; warning: unknown }> {
    const res = await request(`${base}${path}`, {
      method,
      dispatcher: agent,
      headers: { ...headers, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      ...(method === 'POST' ? { body: '{"kind":"Thing"}' } : {}),
    });
    await res.body.text();
    return { status: res.statusCode, warning: res.headers.warning };
  }

  it('names the client that was warned, by a hash of its token, and relays the header unchanged', async () => {
    for (let i = 0; i < 3; i++) {
      const listed = await call('GET', '/apis/example.io/v1/things', {
        'user-agent': OPERATOR_UA,
        authorization: `Bearer ${OPERATOR_TOKEN}`,
      });
      expect(listed).toEqual({ status: 200, warning: `299 - "${THINGS_WARNING}"` });
    }
    expect(await call('POST', '/apis/example.io/v1/namespaces/d/things', { 'user-agent': KUBECTL_UA })).toEqual({
      status: 201,
      warning: undefined,
    });

    // The target release keeps example.io/v1 things: what remains is the warning, for the operator only.
    const keeps = impactReport(
      impactInputOf(core),
      { release: 'v1.40', gitVersion: 'v1.40.0', gvrs: new Set(['example.io/v1/things']) },
      [],
    );
    expect(keeps.findings).toHaveLength(1);
    const [warned] = keeps.findings;
    expect(warned).toMatchObject({
      client: { name: 'thing-operator (thing-controller)', userAgent: OPERATOR_UA, identity: `token:${shortHash(OPERATOR_TOKEN)}` },
      group: 'example.io',
      version: 'v1',
      resource: 'things',
      impact: 'deprecated',
      verbs: [{ verb: 'list', count: 3 }],
      evidence: { warnings: [THINGS_WARNING], servedNowBy: ['a'], servedByTarget: true },
    });
    expect(warned!.message).toContain(`thing-operator (thing-controller) lists example.io/v1 things`);
    expect(warned!.message).toContain(`the apiserver warns "${THINGS_WARNING}"`);

    // From the port's endpoint, against a catalog release that does not serve example.io at all: both
    // clients break; the warning still belongs to the operator alone.
    const res = await request(`${base}/.peerscope/impact?to=v1.37-dev`, { dispatcher: agent });
    const text = await res.body.text();
    expect(res.statusCode).toBe(200);
    expect(text).not.toContain(OPERATOR_TOKEN);
    const report: ImpactReport = impactReportSchema.parse(JSON.parse(text));
    const byClient = new Map(report.findings.map((f) => [f.client.name, f]));
    expect([...byClient.keys()].sort()).toEqual(['kubectl', 'thing-operator (thing-controller)']);
    expect(byClient.get('kubectl')).toMatchObject({
      impact: 'removed',
      client: { identity: 'kubernetes-admin' },
      verbs: [{ verb: 'create', count: 1 }],
      evidence: { warnings: [] },
    });
    expect(byClient.get('thing-operator (thing-controller)')).toMatchObject({
      impact: 'removed',
      evidence: { warnings: [THINGS_WARNING] },
    });
    expect(report.target).toEqual({ release: 'v1.37-dev', gitVersion: 'v1.37.0-dev' });

    // And in the routing snapshot, for reading offline.
    const snap = await request(`${base}/.peerscope/snapshot`, { dispatcher: agent });
    const snapText = await snap.body.text();
    expect(snapText).not.toContain(OPERATOR_TOKEN);
    const usage = (JSON.parse(snapText) as { usage: { rows: { userAgent: string; warned: number }[] } }).usage;
    expect(usage.rows.find((r) => r.userAgent === OPERATOR_UA)?.warned).toBe(3);
  });

  it('answers an unknown target with a 400 Status naming the catalog', async () => {
    const res = await request(`${base}/.peerscope/impact?to=v9.9`, { dispatcher: agent });
    const body = JSON.parse(await res.body.text()) as { kind: string; message: string };
    expect(res.statusCode).toBe(400);
    expect(body.kind).toBe('Status');
    expect(body.message).toMatch(/to=v9.9: unknown release "v9.9"; the catalog has v1.36-dev, v1.37-dev/);
  });
});
