// The own-MVP poll against a real HTTP server's /metrics: which servers it reads, and what it keeps.
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpUpstream } from '../../../test/upstream-fixtures.js';
import { AgentServerReader } from '../server-reader.js';
import type { ServerConfig } from '../server-config.js';
import { OwnMvpPoll, type OwnMvpServer } from './own-mvp-poll.js';

const KUBE = [
  'ping',
  'etcd',
  'poststarthook/start-apiserver-admission-initializer',
  'poststarthook/peer-endpoint-reconciler-controller',
  'poststarthook/mixed-version-proxy-handler',
];
const METRICS = 'apiserver_rerouted_request_total{code="200",group="resource.k8s.io",resource="deviceclasses",version="v1"} 3\n';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function metricsServer(hold?: Promise<void>) {
  const hits: string[] = [];
  const server = await startHttpUpstream((req, res) => {
    hits.push(req.headers.host ?? '');
    void Promise.resolve(hold).then(() => {
      if (req.url === '/metrics') res.writeHead(200, { 'content-type': 'text/plain' }).end(METRICS);
      else res.writeHead(404).end();
    });
  });
  cleanups.push(() => server.close());
  return { url: server.url, hits };
}

function serverAt(url: string, name: string, more: Partial<OwnMvpServer> & { source?: ServerConfig['source'] } = {}): OwnMvpServer {
  const config: ServerConfig = { name, url, ...(more.source ? { source: more.source } : {}) };
  const reader = new AgentServerReader(config, 2_000);
  cleanups.push(() => reader.close());
  return { config, reader, health: more.health ?? 'ready', readyChecks: more.readyChecks ?? KUBE };
}

describe('OwnMvpPoll', () => {
  it('reads only ready real kube-apiservers, and reports their counters in the own-MVP facts', async () => {
    const { url, hits } = await metricsServer();
    const servers = [
      serverAt(url, 'kube'),
      serverAt(url, 'sim', { source: 'sim' }),
      serverAt(url, 'down', { health: 'unreachable' }),
      serverAt(url, 'stand-in', { readyChecks: ['ping'] }),
    ];
    const reads: string[] = [];
    const poll = new OwnMvpPoll({ servers: () => servers, onRead: (n) => reads.push(n) });
    cleanups.push(async () => poll.close());
    for (const s of servers) poll.add(s.config.name);

    expect(poll.ownMvp({ config: servers[0]!.config, readyChecks: KUBE })?.metrics.state).toBe('not-read');
    await poll.readAll();
    expect(hits).toHaveLength(1);
    expect(reads).toEqual(['kube']);
    const mvp = poll.ownMvp({ config: servers[0]!.config, readyChecks: KUBE, gitVersion: 'v1.37.2' });
    expect(mvp).toMatchObject({ verdict: 'on', metrics: { state: 'exposed', reroutedTotal: 3 } });
    expect(poll.ownMvp({ config: servers[1]!.config })).toBeUndefined();
  });

  it('names the address a lease advertises', () => {
    const poll = new OwnMvpPoll({ servers: () => [] });
    poll.add('a');
    expect(
      poll.ownMvp({ config: { name: 'a', url: 'https://10.0.0.1:6443', source: 'lease' }, readyChecks: KUBE })?.advertisedAddress,
    ).toBe('10.0.0.1:6443');
  });

  it('keeps nothing of a read that lands after its server was forgotten', async () => {
    let release: () => void = () => undefined;
    const { url } = await metricsServer(new Promise<void>((r) => (release = r)));
    const servers = [serverAt(url, 'kube')];
    const reads: string[] = [];
    const poll = new OwnMvpPoll({ servers: () => servers, onRead: (n) => reads.push(n) });
    poll.add('kube');
    const reading = poll.readAll();
    await new Promise((r) => setTimeout(r, 20));
    poll.forget('kube');
    poll.add('kube');
    release();
    await reading;
    expect(reads).toEqual([]);
    expect(poll.ownMvp({ config: servers[0]!.config, readyChecks: KUBE })?.metrics.state).toBe('not-read');
  });
});

describe('OwnMvpPoll: request counts and deprecated APIs from the same /metrics', () => {
  /** A server whose /metrics answers what `answer` holds at the time of the request. */
  async function scrapeServer(answer: { status: number; body: string }) {
    const server = await startHttpUpstream((req, res) => {
      if (req.url === '/metrics') res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
      else res.writeHead(404).end();
    });
    cleanups.push(() => server.close());
    return server.url;
  }

  const requestLines = (pods: number, errors: number, notFound: number) =>
    [
      '# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      '# TYPE apiserver_request_total counter',
      `apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} ${pods}`,
      `apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1"} 1`,
      `apiserver_request_total{code="503",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} ${errors}`,
      `apiserver_request_total{code="404",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="",verb="GET",version="v1"} ${notFound}`,
      '# HELP apiserver_requested_deprecated_apis [STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
      '# TYPE apiserver_requested_deprecated_apis gauge',
      'apiserver_requested_deprecated_apis{group="flowcontrol.apiserver.k8s.io",removed_release="1.32",resource="flowschemas",subresource="",version="v1beta3"} 1',
    ].join('\n') + '\n';

  it('per GVR and verb: requests, 5xx and 404 summed over the other labels, rates from the second read on', async () => {
    const answer = { status: 200, body: requestLines(10, 2, 4) };
    const servers = [serverAt(await scrapeServer(answer), 'kube')];
    const poll = new OwnMvpPoll({ servers: () => servers });
    cleanups.push(async () => poll.close());
    poll.add('kube');
    expect(poll.apiserverMetrics(servers[0]!.config)).toMatchObject({ state: 'not-read', requestsTotal: null, deprecatedApis: null });

    await poll.readAll();
    const first = poll.apiserverMetrics(servers[0]!.config)!;
    expect(first).toMatchObject({ state: 'read', requestsTotal: 17, serverErrorsTotal: 2, notFoundTotal: 4 });
    expect(first.previousReadAt).toBeUndefined();
    expect(first.requests).toEqual([
      {
        ...{ group: '', version: 'v1', resource: 'pods', subresource: '', verb: 'LIST' },
        ...{ requests: 13, serverErrors: 2, notFound: 0, requestRate: null, serverErrorRate: null, notFoundRate: null },
      },
      {
        ...{ group: 'apps', version: 'v1', resource: 'deployments', subresource: '', verb: 'GET' },
        ...{ requests: 4, serverErrors: 0, notFound: 4, requestRate: null, serverErrorRate: null, notFoundRate: null },
      },
    ]);
    expect(first.deprecatedApis).toEqual([
      { group: 'flowcontrol.apiserver.k8s.io', version: 'v1beta3', resource: 'flowschemas', subresource: '', removedRelease: '1.32' },
    ]);
    // The own-MVP counters come from the same read: none of their families, so nothing rerouted.
    expect(poll.ownMvp({ config: servers[0]!.config, readyChecks: KUBE })?.metrics).toMatchObject({ state: 'exposed', reroutedTotal: 0 });

    answer.body = requestLines(30, 2, 4);
    await new Promise((r) => setTimeout(r, 50));
    await poll.readAll();
    const second = poll.apiserverMetrics(servers[0]!.config)!;
    expect(second.previousReadAt).toBe(first.readAt);
    const seconds = (second.readAt! - first.readAt!) / 1000;
    const pods = second.requests!.find((r) => r.resource === 'pods')!;
    expect(pods.requestRate).toBeCloseTo(20 / seconds, 6);
    expect(pods.serverErrorRate).toBe(0);
    // A counter that went down was reset by a restart: no rate across it.
    answer.body = requestLines(3, 0, 0);
    await new Promise((r) => setTimeout(r, 20));
    await poll.readAll();
    expect(poll.apiserverMetrics(servers[0]!.config)!.requests!.find((r) => r.resource === 'pods')!.requestRate).toBeNull();
  });

  it('RBAC refusing /metrics, or a body that is not the text format: every count null, the reason named', async () => {
    const forbidden = serverAt(await scrapeServer({ status: 403, body: 'forbidden' }), 'no-rbac');
    const garbage = serverAt(await scrapeServer({ status: 200, body: 'apiserver_request_total{code="200" 5\n' }), 'garbage');
    const servers = [forbidden, garbage];
    const poll = new OwnMvpPoll({ servers: () => servers });
    cleanups.push(async () => poll.close());
    for (const s of servers) poll.add(s.config.name);
    await poll.readAll();
    expect(poll.apiserverMetrics(forbidden.config)).toMatchObject({
      state: 'forbidden',
      requests: null,
      requestsTotal: null,
      serverErrorsTotal: null,
      notFoundTotal: null,
      deprecatedApis: null,
    });
    expect(poll.apiserverMetrics(forbidden.config)!.error).toContain('RBAC');
    expect(poll.ownMvp({ config: forbidden.config, readyChecks: KUBE })?.metrics).toMatchObject({
      state: 'forbidden',
      reroutedTotal: null,
    });
    const bad = poll.apiserverMetrics(garbage.config)!;
    expect(bad).toMatchObject({ state: 'unreadable', requestsTotal: null });
    expect(bad.error).toMatch(/not the Prometheus text format/);
    expect(poll.apiserverMetrics({ name: 'sim-1', url: 'http://127.0.0.1:1', source: 'sim' })).toBeUndefined();
  });
});
