import { describe, expect, it } from 'vitest';
import { lostWatchEvents, type StoreChange, type WatchSegment } from './watch-log.js';

const seg = (over: Partial<WatchSegment>): WatchSegment => ({
  gvr: '/v1/configmaps',
  namespace: 'ns',
  fromRv: 10,
  rvs: [],
  lastRv: 10,
  streams: 1,
  ...over,
});
const change = (rv: number, namespace = 'ns', groupResource = '/configmaps'): StoreChange => ({
  groupResource,
  namespace,
  resourceVersion: rv,
});

describe('lostWatchEvents', () => {
  it('finds nothing lost when every change after the list and up to the last resourceVersion held arrived', () => {
    const changes = [change(9), change(11), change(12, 'other'), change(13), change(14, 'ns', 'apps/deployments'), change(20)];
    const r = lostWatchEvents([seg({ rvs: [11, 13], lastRv: 15 })], changes);
    expect(r).toEqual({ lost: [], duplicated: 0, outOfOrder: 0, covered: 2 });
  });

  it('names a change a resumed watch skipped, and counts repeats and reordering', () => {
    const r = lostWatchEvents([seg({ rvs: [11, 13, 13, 12], lastRv: 14, streams: 2 })], [change(11), change(12), change(13), change(14)]);
    expect(r.lost).toEqual([{ gvr: '/v1/configmaps', namespace: 'ns', resourceVersion: 14 }]);
    expect(r.duplicated).toBe(1);
    expect(r.outOfOrder).toBe(1);
  });

  it('watches every namespace for a cluster-scoped resource', () => {
    const r = lostWatchEvents(
      [seg({ gvr: 'scheduling.k8s.io/v1/priorityclasses', namespace: '', rvs: [11], lastRv: 12 })],
      [change(11, '', 'scheduling.k8s.io/priorityclasses'), change(12, '', 'scheduling.k8s.io/priorityclasses')],
    );
    expect(r.lost.map((l) => l.resourceVersion)).toEqual([12]);
  });
});
