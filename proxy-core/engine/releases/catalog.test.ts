import { describe, expect, it } from 'vitest';
import { fixturePath, fixtureReleases, readFixture, withoutStorageHashes } from '../../../test/fixtures.js';
import { gvrKey } from '../discovery/types.js';
import {
  aggregatedDiscovery,
  bundledReleaseNames,
  catalogEntries,
  importRelease,
  legacyResourceList,
  loadRelease,
  loadReleaseFiles,
  readDiscoveryInput,
  versionOf,
} from './index.js';
import { InputError } from '../util/input-error.js';

interface FixtureList {
  items: { metadata: { name: string }; versions: { version: string; resources: { resource: string }[] }[] }[];
}
interface FixtureLegacy {
  groupVersion: string;
  resources: { name: string }[];
}

function fixtureGvrs(release: string): string[] {
  const agg = readFixture(release, 'aggregated_v2.json') as FixtureList;
  const core = readFixture(release, 'api__v1.json') as FixtureLegacy;
  const keys = core.resources
    .filter((r) => !r.name.includes('/'))
    .map((r) => gvrKey({ group: '', version: core.groupVersion, resource: r.name }));
  for (const g of agg.items)
    for (const v of g.versions)
      for (const r of v.resources) keys.push(gvrKey({ group: g.metadata.name, version: v.version, resource: r.resource }));
  return keys.sort();
}

describe('release catalog', () => {
  const releases = fixtureReleases();

  it('ships every release of the shared fixtures', () => {
    expect(releases.length).toBeGreaterThanOrEqual(2);
    expect(bundledReleaseNames()).toEqual(releases);
  });

  describe.each(releases)('%s', (release) => {
    const catalog = loadRelease(release);

    it('lists exactly the fixture GVRs', () => {
      const ours = [...catalogEntries(catalog)]
        .map((e) => gvrKey({ group: e.group, version: e.version, resource: e.resource.name }))
        .sort();
      const theirs = fixtureGvrs(release);
      expect(ours.length).toBe(theirs.length);
      expect(ours).toEqual(theirs);
    });

    it('renders /apis as the fixture aggregated document, field for field', () => {
      expect(aggregatedDiscovery(catalog, 'apis')).toEqual(withoutStorageHashes(readFixture(release, 'aggregated_v2.json')));
    });

    it('renders /api/v1 as the fixture legacy list, field for field', () => {
      const theirs = withoutStorageHashes(readFixture(release, 'api__v1.json')) as Record<string, unknown>;
      const ours = legacyResourceList(catalog, '', 'v1') as Record<string, unknown>;
      expect({ ...ours, apiVersion: theirs.apiVersion }).toEqual(theirs);
    });

    it('imports the same catalog again from the fixture files (the importer is deterministic)', () => {
      const again = loadReleaseFiles(release, [fixturePath(release, 'api__v1.json'), fixturePath(release, 'aggregated_v2.json')]);
      expect(again).toEqual(catalog);
    });
  });

  it('a captured /apis document plus /api/v1 round-trips through the importer (what --release-file does)', () => {
    const release = releases[releases.length - 1]!;
    const source = loadRelease(release);
    const captured = [
      { file: 'api.json', text: JSON.stringify(aggregatedDiscovery(source, 'api')) },
      { file: 'apis.json', text: JSON.stringify(aggregatedDiscovery(source, 'apis')) },
    ];
    const imported = importRelease('my-cluster', captured);
    const keys = (c: typeof source) => [...catalogEntries(c)].map((e) => `${e.group}/${e.version}/${e.resource.name}`);
    expect(keys(imported)).toEqual(keys(source));
    expect(imported.groups).toEqual(source.groups);
  });

  it('derives /version fields from the release name', () => {
    expect(versionOf('v1.37-dev')).toEqual({ major: '1', minor: '37+', gitVersion: 'v1.37.0-dev' });
    expect(versionOf('v1.33.2')).toEqual({ major: '1', minor: '33', gitVersion: 'v1.33.2' });
  });
});

describe('catalog importer errors name the file and the field', () => {
  const importText = (text: string) => () => importRelease('r', [{ file: 'capture.json', text }]);

  it('a JSON syntax error gives line and column', () => {
    expect(importText('{\n  "kind": "APIGroupDiscoveryList",\n  "items": [,]\n}')).toThrowError(
      'capture.json:3:13: not valid JSON: value expected',
    );
  });

  it('a document of another kind names /kind', () => {
    expect(importText('{"kind":"PodList","items":[]}')).toThrowError('capture.json at /kind: kind is "PodList"');
  });

  it('a wrong field names its JSON pointer', () => {
    const doc = {
      apiVersion: 'apidiscovery.k8s.io/v2',
      kind: 'APIGroupDiscoveryList',
      items: [
        { metadata: { name: 'x.io' }, versions: [{ version: 'v1', resources: [{ resource: 'things', scope: 'Galactic', verbs: [] }] }] },
      ],
    };
    let error: unknown;
    try {
      importText(JSON.stringify(doc))();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).where.pointer).toBe('/items/0/versions/0/resources/0/scope');
  });

  it('an unreadable file is named', () => {
    expect(() => readDiscoveryInput('/nonexistent/apis.json')).toThrowError(
      '/nonexistent/apis.json: cannot read: no such file or directory (ENOENT)',
    );
  });

  it('an unknown bundled release lists the known ones', () => {
    expect(() => loadRelease('v9.99')).toThrowError(/unknown release "v9.99"; the catalog has v1\.36-dev, v1\.37-dev/);
  });
});
