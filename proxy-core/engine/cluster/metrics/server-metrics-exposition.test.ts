// Each real apiserver's request counts and requested deprecated APIs in /.peerscope/metrics: a server
// read gets its series, one not read only its state, a simulated server nothing.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { ServerStatus } from '../../../contract/servers.js';
import { metricsOfScrape } from './read-metrics.js';
import { unreadServerMetrics } from './request-metrics.js';
import { registerServerMetrics } from './server-metrics-exposition.js';
import { parseScrape } from './scrape.js';

const SCRAPE = [
  '# HELP apiserver_request_total [STABLE] Counter of apiserver requests.',
  '# TYPE apiserver_request_total counter',
  'apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 7',
  'apiserver_request_total{code="503",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 1',
  '# HELP apiserver_requested_deprecated_apis [STABLE] Gauge of deprecated APIs that have been requested.',
  '# TYPE apiserver_requested_deprecated_apis gauge',
  'apiserver_requested_deprecated_apis{group="flowcontrol.apiserver.k8s.io",removed_release="1.32",resource="flowschemas",subresource="",version="v1beta3"} 1',
  '# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution.',
  '# TYPE apiserver_request_duration_seconds histogram',
  'apiserver_request_duration_seconds_bucket{verb="LIST",le="0.05"} 8',
  'apiserver_request_duration_seconds_bucket{verb="LIST",le="+Inf"} 8',
  'apiserver_request_duration_seconds_sum{verb="LIST"} 0.1',
  'apiserver_request_duration_seconds_count{verb="LIST"} 8',
  'process_label_escapes{path="C:\\\\dir",msg="say \\"hi\\"\\nbye"} 2',
].join('\n');

const base = { url: 'https://10.0.0.1:6443', source: 'lease' as const, health: 'ready' as const, failingChecks: [] };
const discovery = { state: 'ok' as const, gvrCount: 1 };

describe('parseScrape', () => {
  it('keeps only the families asked for, label escapes undone, histograms in between skipped', () => {
    const families = parseScrape(SCRAPE, new Set(['apiserver_request_total', 'process_label_escapes']));
    expect([...families.keys()]).toEqual(['apiserver_request_total', 'process_label_escapes']);
    expect(families.get('process_label_escapes')).toEqual([{ labels: { path: 'C:\\dir', msg: 'say "hi"\nbye' }, value: 2 }]);
  });
});

/** The families as /.peerscope/metrics prints them for these servers. */
function serverMetricsExposition(statuses: ServerStatus[]): Promise<string> {
  const registry = new Registry();
  registerServerMetrics(registry, () => statuses);
  return registry.metrics();
}

describe('the request-count families', () => {
  it('series per server, GVR and verb for a server read; only the state for one not read; nothing for a simulated one', async () => {
    const read = metricsOfScrape(SCRAPE, 1).server;
    const text = await serverMetricsExposition([
      { ...base, discovery, name: 'a', apiserverMetrics: read },
      { ...base, discovery, name: 'b', apiserverMetrics: unreadServerMetrics('forbidden', 1, 'RBAC') },
      { ...base, discovery, name: 'sim-1', source: 'sim' },
    ] as ServerStatus[]);
    const labels = 'server="a",server_id="a",group="",version="v1",resource="pods",subresource="",verb="LIST"';
    expect(text).toContain(`peerscope_apiserver_requests_total{${labels}} 8`);
    expect(text).toContain(`peerscope_apiserver_server_errors_total{${labels}} 1`);
    expect(text).toContain(`peerscope_apiserver_not_found_total{${labels}} 0`);
    expect(text).toContain(
      'peerscope_apiserver_requested_deprecated_apis{server="a",server_id="a",group="flowcontrol.apiserver.k8s.io",version="v1beta3",resource="flowschemas",subresource="",removed_release="1.32"} 1',
    );
    expect(text).toContain('peerscope_apiserver_metrics_read{server="b",server_id="b",state="forbidden"} 1');
    expect(text).not.toMatch(/server="b",server_id="b",group/);
    expect(text).not.toContain('sim-1');
    expect(await serverMetricsExposition([{ ...base, discovery, name: 'sim-1', source: 'sim' }] as ServerStatus[])).not.toMatch(
      /^peerscope_/m,
    );
  });
});
