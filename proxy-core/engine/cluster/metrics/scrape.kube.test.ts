// The reader of the servers' /metrics on a real kube-apiserver's answer: kube-apiserver v1.36.3 (built
// by npm run kube:build; etcd 3.4.23 beside it), its own peer proxy on, after a list of every API it
// serves and three requests its peer proxy rerouted, trimmed to 200 KB of whole families
// (test/kube/capture-metrics.ts wrote it). kube-apiserver writes each sample in one canonical shape,
// so a line-by-line reading of that shape is the oracle here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { metricsOfScrape } from './read-metrics.js';
import { parseScrape } from './scrape.js';

const FIXTURE = new URL('../../../test/fixtures/kube-apiserver-metrics.txt', import.meta.url);
const text = readFileSync(FIXTURE, 'utf8');

const READ = [
  'apiserver_request_total',
  'apiserver_requested_deprecated_apis',
  'apiserver_rerouted_request_total',
  'apiserver_peer_proxy_errors_total',
  'apiserver_peer_discovery_sync_errors_total',
];

/** The samples of `name` as kube-apiserver writes them: `name{a="x",…} value`. */
function canonical(name: string): { labels: Record<string, string>; value: number }[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .map((l) => {
      const labels: Record<string, string> = {};
      const set = l.slice(name.length, l.lastIndexOf(' '));
      for (const m of set.matchAll(/(\w+)="((?:\\.|[^"\\])*)"/g))
        labels[m[1] as string] = (m[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      return { labels, value: Number(l.slice(l.lastIndexOf(' ') + 1)) };
    });
}

describe("parseScrape on a real kube-apiserver's /metrics", () => {
  it('reads every series of the families Peerscope reads, and nothing of the histograms around them', () => {
    console.log(`fixture: ${text.length} bytes, ${text.split('\n').length} lines, ${new Set(text.match(/^# TYPE \S+/gm)).size} families`);
    const histograms = [...text.matchAll(/^# TYPE (\S+) histogram$/gm)].map((m) => m[1] as string);
    expect(histograms.length).toBeGreaterThan(0);
    // Asked for, a histogram's buckets, sums and counts are still not read as values.
    const families = parseScrape(text, new Set([...READ, ...histograms, ...histograms.map((h) => `${h}_bucket`)]));
    for (const h of histograms) expect(families.has(h) || families.has(`${h}_bucket`), h).toBe(false);
    for (const name of READ.filter((n) => text.includes(`\n${n}{`))) {
      const got = families.get(name) ?? [];
      expect(got.length, name).toBeGreaterThan(0);
      expect(
        got.map((s) => ({ labels: { ...s.labels }, value: s.value })),
        name,
      ).toEqual(canonical(name));
    }
  });

  it('gives the request counts, the deprecated APIs and the own peer-proxy counters', () => {
    const read = metricsOfScrape(text, 1);
    expect(read.server.state).toBe('read');
    expect(read.server.requestsTotal).toBe(canonical('apiserver_request_total').reduce((n, s) => n + s.value, 0));
    expect(read.server.deprecatedApis?.length).toBe(canonical('apiserver_requested_deprecated_apis').length);
    expect(read.ownProxy.state).toBe('exposed');
    expect(read.ownProxy.reroutedTotal).toBe(canonical('apiserver_rerouted_request_total').reduce((n, s) => n + s.value, 0));
  });
});
