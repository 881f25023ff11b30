// The own-MVP poll against a real HTTP server's /metrics: which servers it reads, and what it keeps.
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpUpstream } from '../../../test/upstream-fixtures.js';
import { ControlClient } from '../control-client.js';
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
  const client = new ControlClient(config, 2_000);
  cleanups.push(() => client.close());
  return { config, client, health: more.health ?? 'ready', readyChecks: more.readyChecks ?? KUBE };
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
