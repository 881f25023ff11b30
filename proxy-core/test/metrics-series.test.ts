// Every series /.peerscope/metrics exposes, held against a fixture captured before its exposition moved
// to prom-client: a port with traffic, the cluster source from a followed audit log and the audit
// webhook, and a real server's /metrics (a stand-in that answers a kube-apiserver's counters). The
// fixture keeps each family's HELP and TYPE, each sample's label names and each sample's value.
// A change to the series is a change of the fixture: `vitest run -u` on this file rewrites it, and the
// diff shows what changed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../engine/core.js';
import { WebhookSenders } from '../engine/audit/webhook/senders.js';
import { loadRelease } from '../engine/releases/index.js';
import { createCertificateAuthority, issueServerCertificate } from '../engine/tls/certs.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';
import { auditEventsOf, auditLog, PCR, PCR_PATH, PODS, PODS_PATH } from './audit-events.js';
import { startHttpUpstream, type TestServer } from './upstream-fixtures.js';

/** What a kube-apiserver's /metrics gives of the families Peerscope reads (its own peer proxy on). */
const KUBE_SCRAPE = [
  '# HELP apiserver_request_total [STABLE] Counter of apiserver requests.',
  '# TYPE apiserver_request_total counter',
  'apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 12',
  'apiserver_request_total{code="503",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 2',
  'apiserver_request_total{code="404",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="",verb="GET",version="v1"} 3',
  '# HELP apiserver_requested_deprecated_apis [STABLE] Gauge of deprecated APIs that have been requested.',
  '# TYPE apiserver_requested_deprecated_apis gauge',
  'apiserver_requested_deprecated_apis{group="flowcontrol.apiserver.k8s.io",removed_release="1.32",resource="flowschemas",subresource="",version="v1beta3"} 1',
  '# HELP apiserver_rerouted_request_total [ALPHA] Total number of requests that were proxied to a peer kube apiserver.',
  '# TYPE apiserver_rerouted_request_total counter',
  'apiserver_rerouted_request_total{code="200",group="certificates.k8s.io",resource="podcertificaterequests",version="v1"} 4',
  '# HELP apiserver_peer_proxy_errors_total [ALPHA] Number of errors encountered by the peer proxy.',
  '# TYPE apiserver_peer_proxy_errors_total counter',
  'apiserver_peer_proxy_errors_total{group="apps",resource="deployments",type="dial",version="v1"} 1',
  '# HELP apiserver_peer_discovery_sync_errors_total [ALPHA] Number of errors during peer discovery sync.',
  '# TYPE apiserver_peer_discovery_sync_errors_total counter',
  'apiserver_peer_discovery_sync_errors_total{type="fetch"} 1',
].join('\n');

const MVP_ON_HOOKS = [
  'poststarthook/peer-endpoint-reconciler-controller',
  'poststarthook/mixed-version-proxy-handler',
  'poststarthook/local-discovery-cache-sync',
  'poststarthook/peer-discovery-workers',
]
  .map((h) => `[+]${h} ok\n`)
  .join('');

const DEPRECATED_FS = { group: 'flowcontrol.apiserver.k8s.io', version: 'v1beta3', resource: 'flowschemas' } as const;

/**
 * The shape of an exposition: each family's HELP and TYPE, then each sample as
 * `name{label names in order} value` with its label values, sorted (the order of samples is not part of the format).
 */
function seriesOf(text: string): { families: string[]; samples: string[] } {
  const families: string[] = [];
  const samples: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# ')) {
      families.push(line);
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    samples.push(`${m[1]}{${m[2] ?? ''}} ${Number(m[3])}`);
  }
  return { families, samples: samples.sort() };
}

describe('/.peerscope/metrics: the series it exposes', () => {
  let sim: SimCluster;
  let kube: TestServer;
  let core: Core;
  let port: string;
  let webhookAgent: Agent;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'metrics-series-'));
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['old', 'new'] });
    // A real server as the port tells one (not simulated, its readiness checks a kube-apiserver's, so its
    // /metrics is read): the simulated old server behind a front that answers /metrics itself.
    const simAgent = new Agent({ connect: { ca: sim.ca! } });
    const old = sim.servers[0]!.info().url;
    kube = await startHttpUpstream((req, res) => {
      if (req.url === '/metrics') {
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(KUBE_SCRAPE + '\n');
        return;
      }
      void request(`${old}${req.url}`, { dispatcher: simAgent, headers: { authorization: `Bearer ${sim.token}` } }).then(
        async (up) => {
          let body = await up.body.text();
          // Its own peer proxy on: the hooks kube-apiserver lists then.
          if (req.url?.startsWith('/readyz?verbose')) body = body.replace(/^(?=readyz check passed)/m, MVP_ON_HOOKS);
          res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? '') }).end(body);
        },
        () => res.writeHead(502).end(),
      );
    });
    const log = join(dir, 'old.audit.log');
    writeFileSync(
      log,
      auditLog([
        {
          verb: 'list',
          path: PCR_PATH,
          ref: PCR,
          code: 404,
          userAgent: 'cert-rotator/v0.3.1',
          user: 'system:serviceaccount:certs:rotator',
        },
        { verb: 'list', path: PODS_PATH, ref: PODS, code: 200 },
        {
          verb: 'list',
          path: '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas',
          ref: DEPRECATED_FS,
          code: 200,
          userAgent: 'old-operator/v1',
          deprecated: { removedRelease: '1.32' },
        },
      ]),
    );
    const ca = await createCertificateAuthority('metrics-series-ca');
    const serving = await issueServerCertificate(ca, { commonName: 'peerscope-audit-webhook', hosts: ['127.0.0.1'] });
    writeFileSync(join(dir, 'new.token'), 'new-posts-with-this\n');
    webhookAgent = new Agent({ connect: { ca: ca.cert } });
    core = createCore({
      // Known by its lease name, read by its host name: its series carry both (server, server_id).
      servers: [...sim.serverConfigs(), { name: 'apiserver-kube-1', hostname: 'kube-1', url: kube.url, source: 'kubeconfig' }],
      listen: { port: 0 },
      // The same handling server for every request, run after run.
      random: () => 0,
      ownMetricsIntervalMs: 100,
      auditLogs: [{ server: 'old', file: log }],
      auditWebhook: {
        host: '127.0.0.1',
        port: 0,
        cert: serving.cert,
        key: serving.key,
        senders: new WebhookSenders([{ server: 'new', file: join(dir, 'new.token') }]),
      },
    });
    port = (await core.start()).url;
  }, 60_000);

  afterAll(async () => {
    await webhookAgent?.close();
    await core?.close(0);
    await kube?.close();
    await sim?.close();
  });

  async function post(token: string, items: unknown[]): Promise<number> {
    const res = await request(core.auditWebhookUrl()!, {
      method: 'POST',
      dispatcher: webhookAgent,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items }),
    });
    await res.body.text();
    return res.statusCode;
  }

  it('match the fixture captured before the move to prom-client', async () => {
    for (const path of [PODS_PATH, PODS_PATH, PCR_PATH, '/apis/nothing.example.com/v1/widgets', '/version']) {
      const res = await request(`${port}${path}`, { headers: { 'user-agent': 'metrics-series/v1' } });
      await res.body.text();
    }
    expect(await post('new-posts-with-this', auditEventsOf({ verb: 'list', path: PODS_PATH, ref: PODS, code: 200 }))).toBe(200);
    expect(await post('not-a-sender', [])).toBe(401);
    const metrics = async () => (await (await request(`${port}/.peerscope/metrics`)).body.text()) as string;
    // Everything counted: the log read, the webhook's batch, the stand-in's /metrics read.
    await expect
      .poll(
        async () => {
          const text = await metrics();
          return [
            'peerscope_cluster_deprecated_requests_total{',
            'peerscope_apiserver_requests_total{',
            'peerscope_apiserver_rerouted_request_total{',
          ].every((s) => text.includes(s));
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    const text = await metrics();
    const series = seriesOf(text);
    console.log(`${series.families.length / 2} families, ${series.samples.length} samples`);
    await expect(JSON.stringify(series, null, 2) + '\n').toMatchFileSnapshot('fixtures/peerscope-metrics-series.json');
  });
});
