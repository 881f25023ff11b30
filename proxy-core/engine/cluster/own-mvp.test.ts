// Telling an apiserver's own Mixed Version Proxy from outside: the /readyz?verbose checks a real
// kube-apiserver v1.37.2 lists with the proxy on, without --peer-ca-file and with the gate off
// (test/kube runs the real servers; these are the lines they print), and its /metrics counters.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { NOT_READ, ownMvpOf } from './own-mvp.js';
import { metricsOfScrape } from './metrics/read-metrics.js';
import { registerOwnMvp } from './own-mvp-exposition.js';
import type { ServerStatus } from '../../contract/servers.js';

/** The own peer-proxy counters of a scrape, as the poll keeps them. */
function parseOwnProxyMetrics(text: string, readAt = Date.now()) {
  return metricsOfScrape(text, readAt).ownProxy;
}

const COMMON = [
  'ping',
  'etcd',
  'poststarthook/start-apiserver-admission-initializer',
  'poststarthook/start-kube-apiserver-identity-lease-controller',
];
const GATE = ['poststarthook/peer-endpoint-reconciler-controller'];
const PROXY = [
  'poststarthook/mixed-version-proxy-handler',
  'poststarthook/local-discovery-cache-sync',
  'poststarthook/peer-discovery-workers',
];

describe('ownMvpOf', () => {
  it("on: the gate's reconciler and the proxy's hooks are listed", () => {
    const o = ownMvpOf({
      name: 'apiserver-a',
      readyChecks: [...COMMON, ...GATE, ...PROXY],
      gitVersion: 'v1.37.2',
      advertisedAddress: '10.0.0.1:6443',
      metrics: NOT_READ,
    });
    expect(o).toMatchObject({
      verdict: 'on',
      featureGate: 'yes',
      peerCaFile: 'yes',
      peerAggregatedDiscovery: 'yes',
      advertisedAddress: '10.0.0.1:6443',
    });
    expect(o.summary).toBe(
      "apiserver-a's own Mixed Version Proxy is on: it reroutes what it cannot serve to a peer and is reached at 10.0.0.1:6443",
    );
  });

  it('off without --peer-ca-file (the gate on, as kubeadm leaves it); its counters are "not exposed", never zero', () => {
    const exposed = parseOwnProxyMetrics('# HELP apiserver_request_total Counter of apiserver requests.\n');
    const o = ownMvpOf({ name: 'sim-2', readyChecks: [...COMMON, ...GATE], gitVersion: 'v1.36.3', metrics: exposed });
    expect(o).toMatchObject({ verdict: 'off', featureGate: 'yes', peerCaFile: 'no', peerAggregatedDiscovery: 'no' });
    expect(o.summary).toMatch(/^sim-2's own Mixed Version Proxy is off: no --peer-ca-file/);
    expect(o.metrics).toMatchObject({ state: 'not-exposed', reroutedTotal: null, proxyErrorsTotal: null, discoverySyncErrorsTotal: null });
  });

  it("off with the gate off, and unknown when the checks are not a kube-apiserver's", () => {
    const off = ownMvpOf({ name: 'b', readyChecks: COMMON, gitVersion: 'v1.37.2', metrics: NOT_READ });
    expect(off.summary).toBe(
      "b's own Mixed Version Proxy is off: the UnknownVersionInteroperabilityProxy feature gate is off (it is on by default since v1.36: set off with --feature-gates)",
    );
    expect(ownMvpOf({ name: 'c', readyChecks: ['ping'], metrics: NOT_READ }).verdict).toBe('unknown');
    expect(ownMvpOf({ name: 'c', metrics: NOT_READ }).summary).toContain('not known yet');
  });
});

describe('parseOwnProxyMetrics', () => {
  it('reads the three families with their labels and sums them; ignores the rest', () => {
    const m = parseOwnProxyMetrics(
      [
        '# TYPE apiserver_rerouted_request_total counter',
        'apiserver_rerouted_request_total{code="200",group="",resource="",version=""} 8',
        'apiserver_rerouted_request_total{code="200",group="coordination.k8s.io",resource="leasecandidates",version="v1beta1"} 3',
        'apiserver_peer_discovery_sync_errors_total{type="hostport_resolution"} 31',
        'apiserver_request_total{code="200"} 1000',
      ].join('\n'),
      5,
    );
    expect(m).toMatchObject({ state: 'exposed', readAt: 5, reroutedTotal: 11, proxyErrorsTotal: 0, discoverySyncErrorsTotal: 31 });
    expect(m.rerouted[1]).toEqual({
      labels: { code: '200', group: 'coordination.k8s.io', resource: 'leasecandidates', version: 'v1beta1' },
      value: 3,
    });
  });
});

/** The families as /.peerscope/metrics prints them for these servers. */
function ownMvpExposition(statuses: ServerStatus[]): Promise<string> {
  const registry = new Registry();
  registerOwnMvp(registry, () => statuses);
  return registry.metrics();
}

describe('the own-MVP families', () => {
  it('a server with its proxy on gets its counters, one without gets its state and no counter: never a zero', async () => {
    const base = {
      url: 'https://10.0.0.1:6443',
      source: 'lease' as const,
      health: 'ready' as const,
      failingChecks: [],
      discovery: { state: 'ok' as const, gvrCount: 1 },
    };
    const on = ownMvpOf({
      name: 'a',
      readyChecks: [...COMMON, ...GATE, ...PROXY],
      metrics: parseOwnProxyMetrics('apiserver_rerouted_request_total{code="200",group="g",resource="r",version="v1"} 4\n'),
    });
    const off = ownMvpOf({ name: 'b', readyChecks: [...COMMON, ...GATE], metrics: parseOwnProxyMetrics('') });
    const text = await ownMvpExposition([
      { ...base, name: 'a', ownMvp: on },
      { ...base, name: 'b', ownMvp: off },
      { ...base, name: 'sim-1' },
    ] as ServerStatus[]);
    expect(text).toContain('peerscope_apiserver_own_mvp{server="a",server_id="a",verdict="on"} 1');
    expect(text).toContain('peerscope_apiserver_own_proxy_metrics{server="b",server_id="b",state="not-exposed"} 1');
    expect(text).toContain(
      'peerscope_apiserver_rerouted_request_total{server="a",server_id="a",code="200",group="g",resource="r",version="v1"} 4',
    );
    expect(text).not.toMatch(/rerouted_request_total\{server="b",server_id="b"/);
    expect(text).not.toContain('sim-1');
    // Simulated servers only: the families, no series.
    expect(await ownMvpExposition([{ ...base, name: 'sim-1' }] as ServerStatus[])).not.toMatch(/^peerscope_/m);
  });
});
