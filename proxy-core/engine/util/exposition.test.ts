import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerFamily, scrape } from './exposition.js';

function samples(text: string): string[] {
  return text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
}

describe('registerFamily: server labels', () => {
  const counts = new Map([
    ['apiserver-sim-2', 3],
    ['kube', 1],
    ['', 2],
  ]);
  const registry = new Registry();
  registerFamily(registry, {
    name: 'served_total',
    help: 'Requests per handling and answering server.',
    type: 'counter',
    labelNames: ['handling', 'code', 'answered_by'],
    serverLabels: ['handling', 'answered_by'],
    samples: () => [...counts].map(([id, value]) => ({ labels: { handling: id, code: '200', answered_by: id }, value })),
  });

  it('print the name a person reads, the identity beside it, as the scrape names them', async () => {
    const hosts = new Map([['apiserver-sim-2', 'sim-2']]);
    expect(samples(await scrape(registry, (id) => hosts.get(id) ?? id))).toEqual([
      'served_total{handling="sim-2",handling_id="apiserver-sim-2",code="200",answered_by="sim-2",answered_by_id="apiserver-sim-2"} 3',
      'served_total{handling="kube",handling_id="kube",code="200",answered_by="kube",answered_by_id="kube"} 1',
      'served_total{handling="",handling_id="",code="200",answered_by="",answered_by_id=""} 2',
    ]);
    // A server joins with the same host name: the names the screens print change, and so do the labels.
    hosts.set('apiserver-sim-2', 'sim-2 (sim2ab)');
    expect(samples(await scrape(registry, (id) => hosts.get(id) ?? id))[0]).toBe(
      'served_total{handling="sim-2 (sim2ab)",handling_id="apiserver-sim-2",code="200",answered_by="sim-2 (sim2ab)",answered_by_id="apiserver-sim-2"} 3',
    );
  });

  it('name a server by its identity when the scrape gives no names', async () => {
    expect(samples(await scrape(registry))[0]).toBe(
      'served_total{handling="apiserver-sim-2",handling_id="apiserver-sim-2",code="200",answered_by="apiserver-sim-2",answered_by_id="apiserver-sim-2"} 3',
    );
  });
});
