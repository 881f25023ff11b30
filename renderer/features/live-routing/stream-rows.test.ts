import { describe, expect, it } from 'vitest';
import { clusterEvent, routingEvent } from '../../test/fake-client.js';
import { outcomeStyle } from '../../shared/ui/format.js';
import { addToSeries } from './event-feed.js';
import { clusterRow, mergeNewestFirst, portRow, sumSeries } from './stream-rows.js';

const label = (o: keyof typeof outcomeStyle) => outcomeStyle[o].label;

describe('stream rows', () => {
  it('say who answered: the port names the peer it rerouted to; a server rerouted by its own proxy, "a peer"', () => {
    expect(portRow(routingEvent(1, { outcome: 'rerouted', handling: 'sim-2', answeredBy: 'sim-1' }), label)).toMatchObject({
      source: 'port',
      outcomeText: '→ sim-1',
      answeredBy: 'sim-1',
    });
    expect(portRow(routingEvent(2, { outcome: 'unavailable', answeredBy: null, status: 503 }), label).answeredBy).toBe('peerscope');
    expect(clusterRow(clusterEvent(3, { outcome: 'rerouted', server: 'sim-2' }), label)).toMatchObject({
      source: 'cluster',
      handling: 'sim-2',
      answeredBy: 'a peer',
      outcomeText: 'rerouted',
    });
    expect(clusterRow(clusterEvent(4, { outcome: 'false-404', code: 404, verb: 'watch' }), label)).toMatchObject({
      method: 'watch',
      answeredBy: 'sim-2',
      outcomeText: 'false 404',
      status: 404,
    });
  });

  it('merge two newest-first lists by time, bounded', () => {
    const port = [30, 10].map((at, i) => portRow(routingEvent(i + 1, { at }), label));
    const cluster = [40, 20, 5].map((at, i) => clusterRow(clusterEvent(i + 1, { at }), label));
    expect(mergeNewestFirst(port, cluster, 10).map((r) => `${r.source}@${r.at}`)).toEqual([
      'cluster@40',
      'port@30',
      'cluster@20',
      'port@10',
      'cluster@5',
    ]);
    expect(mergeNewestFirst(port, cluster, 2)).toHaveLength(2);
  });

  it('add two rate series second by second, false 404s kept apart from 404s', () => {
    const port = addToSeries(addToSeries([], 10_000, { local: 2 }), 11_000, { notfound: 1 });
    const cluster = addToSeries([], 11_500, { local: 3, 'false-404': 4 });
    const both = sumSeries(port, cluster);
    expect(both.map((p) => [p.t, p.local, p.notfound, p['false-404']])).toEqual([
      [10, 2, 0, 0],
      [11, 3, 1, 4],
    ]);
    expect(sumSeries([], cluster)).toEqual(cluster);
  });
});
