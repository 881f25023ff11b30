// Conformance cases (docs/mixed-version-proxy-rules.md §7) on real sockets with other sets of simulated
// apiservers: A, B and C (C33–C35), A, B and D (C36), one server only (C46); and the catalog picker they use.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEDIA } from '../engine/discovery/types.js';
import { A_GVRS, B_GVRS, C_GVRS, D_GVRS, pickCatalog, startBed, type Bed } from './harness.js';
import { seededRandom } from '../engine/util/seeded-random.js';

describe('conformance: A, B and C up', () => {
  let bed: Bed;
  beforeAll(async () => {
    bed = await startBed({ A: A_GVRS, B: B_GVRS, C: C_GVRS });
  });
  afterAll(() => bed?.close());

  it('C33: only C serves v1beta2: rerouted to C', async () => {
    bed.core.setPolicy({ kind: 'pin', server: 'A' });
    expect((await bed.get('/apis/resource.k8s.io/v1beta2/resourceclaims')).route()).toBe('handling=A; answering=C; outcome=rerouted');
  });

  it('C34: C lacks v1beta1: rerouted to B (versions compared exactly)', async () => {
    bed.core.setPolicy({ kind: 'pin', server: 'C' });
    expect((await bed.get('/apis/resource.k8s.io/v1beta1/resourceclaims')).route()).toBe('handling=C; answering=B; outcome=rerouted');
  });

  it('C35 (P9, the default): the merged group lists v1, v1beta2 and v1beta1, in version priority', async () => {
    bed.core.setPolicy({ kind: 'pin', server: 'A' });
    expect(await resourceVersions(bed)).toEqual(['v1', 'v1beta2', 'v1beta1']);
  });
});

describe('conformance: A, B and C up, --faithful', () => {
  it('C35: the merged group lists v1, v1beta1 and v1beta2 in order-preserving merge order (D2)', async () => {
    const bed = await startBed({ A: A_GVRS, B: B_GVRS, C: C_GVRS }, { faithful: true, policy: { kind: 'pin', server: 'A' } });
    try {
      expect(await resourceVersions(bed)).toEqual(['v1', 'v1beta1', 'v1beta2']);
    } finally {
      await bed.close();
    }
  });
});

/** The versions of resource.k8s.io in the port's merged aggregated /apis. */
async function resourceVersions(bed: Bed): Promise<string[] | undefined> {
  const items = (await bed.get('/apis', { accept: MEDIA.v2Json })).json<{
    items: { metadata: { name: string }; versions: { version: string }[] }[];
  }>().items;
  return items.find((g) => g.metadata.name === 'resource.k8s.io')?.versions.map((v) => v.version);
}

describe('conformance: A, B and D up', () => {
  it('C36: requests for a GVR two peers serve are spread uniformly at random', async () => {
    const random = seededRandom(42);
    const bed = await startBed({ A: A_GVRS, B: B_GVRS, D: D_GVRS }, { random, policy: { kind: 'pin', server: 'A' } });
    try {
      const counts: Record<string, number> = {};
      for (let i = 0; i < 1000; i++) {
        const r = await bed.get('/apis/resource.k8s.io/v1/deviceclasses');
        const answering = /answering=(\w+)/.exec(r.route())?.[1] ?? '?';
        counts[answering] = (counts[answering] ?? 0) + 1;
      }
      expect(Object.keys(counts).sort()).toEqual(['B', 'D']);
      expect(counts.B).toBeGreaterThan(430);
      expect(counts.D).toBeGreaterThan(430);
    } finally {
      await bed.close();
    }
  });
});

describe('conformance: one server only (C46)', () => {
  it('C46: the merged /apis of a single server is its own list unchanged', async () => {
    const bed = await startBed({ A: A_GVRS });
    try {
      const merged = await bed.get('/apis', { accept: MEDIA.v2Json });
      const own = await bed.get('/apis', { accept: MEDIA.v2JsonNoPeer });
      expect(merged.json()).toEqual(own.json());
    } finally {
      await bed.close();
    }
  });
});

describe('the catalog picker used by these tests', () => {
  it('refuses a GVR the base release lacks', () => {
    expect(() => pickCatalog('x', ['nope.io/v1/things'])).toThrow('the base release has no nope.io/v1/things');
  });
});
