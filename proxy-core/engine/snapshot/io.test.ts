import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  routingSnapshotSchema,
  snapshotDiffSchema,
  snapshotServerNames,
  snapshotReadResultSchema,
  type RoutingSnapshot,
} from '../../contract/snapshot.js';
import { InputError } from '../util/input-error.js';
import { MAX_SNAPSHOT_BYTES, parseSnapshot, readSnapshotFile, readSnapshotText, serializeSnapshot, writeSnapshotFile } from './io.js';
import { diffSnapshots, formatDiff } from './diff.js';
import { routingEvent } from '../../test/routing-event.js';
import { canonicalRelease } from '../releases/release-names.js';

export function sampleSnapshot(overrides: Partial<RoutingSnapshot> = {}): RoutingSnapshot {
  return {
    apiVersion: 'peerscope.dev/v1',
    kind: 'RoutingSnapshot',
    takenAt: '2026-11-23T08:00:00.000Z',
    source: { kind: 'sim', peerscopeVersion: '0.1.0' },
    settings: { discoveryMode: 'peer-aggregated', policy: 'round-robin' },
    servers: [
      {
        name: 'sim-1',
        url: 'https://127.0.0.1:6443',
        source: 'sim',
        health: 'ready',
        failingChecks: [],
        gitVersion: 'v1.36.0-dev',
        discovery: { state: 'ok', gvrs: ['/v1/pods', 'apps/v1/deployments'] },
      },
      {
        name: 'sim-2',
        url: 'https://127.0.0.1:6444',
        source: 'sim',
        health: 'ready',
        failingChecks: [],
        gitVersion: 'v1.37.0-dev',
        discovery: { state: 'ok', gvrs: ['/v1/pods', 'apps/v1/deployments', 'storagemigration.k8s.io/v1/storageversionmigrations'] },
      },
    ],
    routeTable: {
      rows: [
        { gvr: '/v1/pods', servers: ['sim-1', 'sim-2'] },
        { gvr: 'apps/v1/deployments', servers: ['sim-1', 'sim-2'] },
        { gvr: 'storagemigration.k8s.io/v1/storageversionmigrations', servers: ['sim-2'] },
      ],
      skewed: ['storagemigration.k8s.io/v1/storageversionmigrations'],
    },
    counters: [
      { outcome: 'local', gvr: '/v1/pods', handling: 'sim-1', answeredBy: 'sim-1', count: 10 },
      { outcome: 'rerouted', gvr: 'storagemigration.k8s.io/v1/storageversionmigrations', handling: 'sim-1', answeredBy: 'sim-2', count: 4 },
      { outcome: 'local', gvr: 'storagemigration.k8s.io/v1/storageversionmigrations', handling: 'sim-2', answeredBy: 'sim-2', count: 4 },
    ],
    events: [{ seq: 1, ...routingEvent({ latencyMs: 1.2, bytesOut: 300 }) }],
    ...overrides,
  };
}

const errorOf = (fn: () => unknown): InputError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('expected an InputError');
};

describe('snapshot files', () => {
  it('round-trips: export → import gives an equal snapshot', () => {
    const dir = mkdtempSync(join(tmpdir(), 'snap-'));
    const file = join(dir, 'a.json');
    const snap = sampleSnapshot();
    writeSnapshotFile(file, snap);
    expect(readSnapshotFile(file)).toEqual(snap);
    expect(routingSnapshotSchema.parse(JSON.parse(readFileSync(file, 'utf8')))).toEqual(snap);
  });

  it('a syntax error names the line and column', () => {
    const text = serializeSnapshot(sampleSnapshot()).replace('"kind": "RoutingSnapshot",', '"kind": "RoutingSnapshot"');
    const e = errorOf(() => parseSnapshot(text, 'before.json'));
    expect(e.where.line).toBe(4);
    expect(e.message).toMatch(/^before\.json:4:\d+: not valid JSON/);
  });

  it('a truncated file is a syntax error at its end', () => {
    const text = serializeSnapshot(sampleSnapshot());
    const cut = text.slice(0, Math.floor(text.length / 2));
    const e = errorOf(() => parseSnapshot(cut, 'cut.json'));
    expect(e.message).toContain('not valid JSON');
    expect(e.where.line).toBe(cut.split('\n').length);
  });

  it('a wrong type names the field by JSON pointer', () => {
    const snap = sampleSnapshot() as unknown as { servers: { health: unknown }[] };
    snap.servers[1]!.health = 42;
    const e = errorOf(() => parseSnapshot(JSON.stringify(snap), 'x.json'));
    expect(e.where.pointer).toBe('/servers/1/health');
  });

  it('a missing field names the field', () => {
    const { routeTable: _drop, ...rest } = sampleSnapshot();
    const e = errorOf(() => parseSnapshot(JSON.stringify(rest), 'x.json'));
    expect(e.where.pointer).toBe('/routeTable');
  });

  it('a newer apiVersion says it was made by a newer Peerscope', () => {
    const e = errorOf(() => parseSnapshot(JSON.stringify({ ...sampleSnapshot(), apiVersion: 'peerscope.dev/v2' }), 'new.json'));
    expect(e.message).toBe(
      'new.json at /apiVersion: apiVersion peerscope.dev/v2 was made by a newer Peerscope; this one reads peerscope.dev/v1',
    );
  });

  it('a document of another kind or group is refused by name', () => {
    expect(errorOf(() => parseSnapshot('{"kind":"PodList"}', 'p.json')).where.pointer).toBe('/kind');
    expect(errorOf(() => parseSnapshot(JSON.stringify({ ...sampleSnapshot(), apiVersion: 'v1' }), 'p.json')).where.pointer).toBe(
      '/apiVersion',
    );
  });

  it('a 50 MB file is refused before it is read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'snap-'));
    const file = join(dir, 'huge.json');
    writeFileSync(file, Buffer.alloc(50 * 1024 * 1024, 0x20));
    const e = errorOf(() => readSnapshotFile(file));
    expect(e.message).toMatch(/huge\.json: is 50\.0 MiB, over the 32 MiB a snapshot can be/);
    expect(MAX_SNAPSHOT_BYTES).toBe(32 * 1024 * 1024);
  });
});

describe('readSnapshotText (CoreClient.readSnapshot): the named error as data', () => {
  const read = (text: string, file = 'f.json', size?: number) => {
    const result = readSnapshotText(text, file, size);
    // What crosses the transports must match the contract.
    expect(snapshotReadResultSchema.parse(result)).toEqual(result);
    return result;
  };
  const failure = (text: string, file = 'f.json', size?: number) => {
    const result = read(text, file, size);
    if (result.ok) throw new Error('expected a failure');
    return result.error;
  };

  it('gives the validated snapshot whole', () => {
    const snap = sampleSnapshot();
    expect(read(serializeSnapshot(snap))).toEqual({ ok: true, snapshot: snap });
  });

  it('a syntax error: file, line, column', () => {
    const text = serializeSnapshot(sampleSnapshot()).replace('"kind": "RoutingSnapshot",', '"kind": "RoutingSnapshot"');
    const e = failure(text, 'before.json');
    expect(e).toMatchObject({ file: 'before.json', reason: 'syntax', line: 4 });
    expect(e.column).toBeGreaterThan(0);
    expect(e.message).toBe(`before.json:4:${e.column}: ${e.detail}`);
    expect(e.pointer).toBeUndefined();
  });

  it('a wrong type and a missing field: the JSON pointer', () => {
    const snap = sampleSnapshot() as unknown as { servers: { health: unknown }[] };
    snap.servers[0]!.health = 'sleeping';
    expect(failure(JSON.stringify(snap))).toMatchObject({ reason: 'invalid', pointer: '/servers/0/health' });
    const { events: _drop, ...rest } = sampleSnapshot();
    expect(failure(JSON.stringify(rest))).toMatchObject({ reason: 'invalid', pointer: '/events' });
  });

  it('a newer apiVersion, another kind, an unknown group, a truncated file, an oversized file', () => {
    const newer = failure(JSON.stringify({ ...sampleSnapshot(), apiVersion: 'peerscope.dev/v9' }), 'new.json');
    expect(newer).toMatchObject({ reason: 'newer-version', pointer: '/apiVersion' });
    expect(newer.message).toContain('made by a newer Peerscope');
    expect(failure('{"kind":"PodList"}')).toMatchObject({ reason: 'not-a-snapshot', pointer: '/kind' });
    expect(failure('[]')).toMatchObject({ reason: 'not-a-snapshot', pointer: '' });
    expect(failure(JSON.stringify({ ...sampleSnapshot(), apiVersion: 'v1' }))).toMatchObject({
      reason: 'unknown-version',
      pointer: '/apiVersion',
    });
    const text = serializeSnapshot(sampleSnapshot());
    expect(failure(text.slice(0, 200))).toMatchObject({ reason: 'syntax', line: text.slice(0, 200).split('\n').length });
    // A host that knows the file is 50 MB need not send its text.
    const huge = failure('', 'huge.json', 50 * 1024 * 1024);
    expect(huge).toMatchObject({ reason: 'too-large', file: 'huge.json' });
    expect(huge.message).toBe(
      'huge.json: is 50.0 MiB, over the 32 MiB a snapshot can be; it is not a Peerscope snapshot or it was damaged',
    );
  });
});

describe('snapshot diff', () => {
  it('names upgraded servers, gained and lost GVRs, skew changes and outcome share changes', () => {
    const before = sampleSnapshot();
    const after = sampleSnapshot({
      servers: before.servers.map((s) =>
        s.name === 'sim-1'
          ? {
              ...s,
              gitVersion: 'v1.37.0-dev',
              discovery: { ...s.discovery, gvrs: [...s.discovery.gvrs, 'storagemigration.k8s.io/v1/storageversionmigrations'] },
            }
          : s,
      ),
      routeTable: { rows: [], skewed: [] },
      counters: [
        { outcome: 'local', gvr: 'storagemigration.k8s.io/v1/storageversionmigrations', handling: 'sim-1', answeredBy: 'sim-1', count: 8 },
      ],
    });
    const d = diffSnapshots(before, after);
    expect(d.servers.upgraded).toEqual([{ name: 'sim-1', from: 'v1.36.0-dev', to: 'v1.37.0-dev' }]);
    expect(d.gvrs).toEqual([{ server: 'sim-1', gained: ['storagemigration.k8s.io/v1/storageversionmigrations'], lost: [] }]);
    expect(d.skew).toEqual({ became: [], resolved: ['storagemigration.k8s.io/v1/storageversionmigrations'] });
    expect(d.outcomeRates).toContainEqual({
      gvr: 'storagemigration.k8s.io/v1/storageversionmigrations',
      outcome: 'rerouted',
      before: 0.5,
      after: 0,
      requestsBefore: 8,
      requestsAfter: 8,
    });
    expect(formatDiff(d)).toContain('sim-1: v1.36.0-dev → v1.37.0-dev');
    expect(formatDiff(d, undefined, canonicalRelease)).toContain('sim-1: v1.36-dev → v1.37-dev');
    expect(formatDiff(diffSnapshots(before, before))).toBe('no differences\n');
    // The diff is a contract type too (CoreClient.compareSnapshots).
    expect(snapshotDiffSchema.parse(d)).toEqual(d);
    // In words, the servers go by the host names the snapshots recorded (the later's first).
    const hosts = (s: typeof after, names: Record<string, string>) => ({
      ...s,
      servers: s.servers.map((x) => ({ ...x, displayName: names[x.name] ?? x.name })),
    });
    const text = formatDiff(d, snapshotServerNames(hosts(after, { 'sim-1': 'cp-1' }), hosts(before, { 'sim-1': 'old-1' })));
    expect(text).toContain('cp-1: v1.36.0-dev → v1.37.0-dev');
    expect(text).toContain('cp-1 gained:');
    expect(text).not.toContain('sim-1');
  });

  it('compares outcome shares only where both snapshots saw requests', () => {
    const before = sampleSnapshot();
    const quiet = sampleSnapshot({ counters: [] });
    expect(before.counters.length).toBeGreaterThan(0);
    expect(diffSnapshots(before, quiet).outcomeRates).toEqual([]);
    expect(diffSnapshots(quiet, before).outcomeRates).toEqual([]);
    expect(formatDiff(diffSnapshots(before, quiet))).not.toMatch(/%/);
  });
});
