// The engine's own conversion of legacy discovery (discovery/legacy.ts) gives the same aggregated
// documents as the simulator's catalog importer and renderer do from the same resource lists: every
// group-version of both releases of the catalog, as a pre-1.26 apiserver would list them.
import { describe, expect, it } from 'vitest';
import { aggregatedFromLegacy } from '../engine/discovery/legacy.js';
import { importRelease } from '../engine/releases/importer.js';
import { aggregatedDiscovery, legacyResourceList, loadRelease } from '../engine/releases/index.js';

describe('legacy discovery → aggregated', () => {
  for (const release of ['v1.36-dev', 'v1.37-dev']) {
    it(`matches the catalog's own rendering for ${release}`, () => {
      const catalog = loadRelease(release);
      const documents = catalog.groups.flatMap((g) =>
        g.versions.map((v) => ({
          file: `${release}/${g.name ? `apis/${g.name}` : 'api'}/${v.version}`,
          text: JSON.stringify(legacyResourceList(catalog, g.name, v.version)),
        })),
      );
      expect(documents.length).toBeGreaterThan(20);
      for (const root of ['api', 'apis'] as const) {
        const mine = aggregatedFromLegacy(documents, root);
        expect(mine).toEqual(aggregatedDiscovery(importRelease('legacy', documents), root));
        expect(mine.items.length).toBeGreaterThan(0);
      }
    });
  }

  it('names the document and field at fault', () => {
    expect(() => aggregatedFromLegacy([{ file: 'old/apis/apps/v1', text: '{"kind":"Status"}' }], 'apis')).toThrow(
      'old/apis/apps/v1 at /kind: kind is "Status"; expected APIResourceList',
    );
    expect(() =>
      aggregatedFromLegacy(
        [
          {
            file: 'old/api/v1',
            text: '{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods/status","namespaced":true,"kind":"Pod","verbs":[]}]}',
          },
        ],
        'api',
      ),
    ).toThrow('subresource "pods/status" comes before its resource "pods"');
  });
});
