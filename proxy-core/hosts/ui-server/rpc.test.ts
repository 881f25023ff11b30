// The UI server on real sockets: JSON calls validated both ways against the contract, with no credential
// in any payload, and snapshot files read and compared for the UI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overviewSchema, routeTableViewSchema, discoveryViewsSchema } from '../../contract/client.js';
import { MAX_SNAPSHOT_BYTES, routingSnapshotSchema, snapshotDiffSchema, snapshotReadResultSchema } from '../../contract/snapshot.js';
import { serializeSnapshot } from '../../engine/snapshot/io.js';
import { type Core } from '../../engine/core.js';
import { type SimCluster } from '../../sim/index.js';
import { type UiServer } from './server.js';
import { rpcCall, startUiHost, type UiHost } from '../../test/ui-host.js';
import { routingEvent } from '../../test/routing-event.js';

describe('UI server', () => {
  let sim: SimCluster;
  let core: Core;
  let control: UiServer;
  let uiHost: UiHost | undefined;
  const rpc = (method: string, args?: unknown, headers?: Record<string, string>) => rpcCall(control, method, args, headers);

  beforeAll(async () => {
    uiHost = await startUiHost();
    ({ sim, core, control } = uiHost);
  });
  afterAll(() => uiHost?.close());

  it('answers CoreClient calls with payloads that match the contract and carry no credential', async () => {
    const overview = await rpc('getOverview');
    expect(overview.status).toBe(200);
    const parsed = overviewSchema.parse(JSON.parse(overview.body));
    expect(parsed.servers.map((s) => s.name)).toEqual(['sim-1', 'sim-2']);
    expect(parsed.sim).toBeUndefined();
    const table = routeTableViewSchema.parse(JSON.parse((await rpc('getRouteTable')).body));
    expect(table.skewedCount).toBeGreaterThan(0);
    expect(table.columns.map((c) => c.gitVersion)).toEqual(['v1.36.0-dev', 'v1.37.0-dev']);
    const views = discoveryViewsSchema.parse(JSON.parse((await rpc('getDiscoveryViews')).body));
    expect(views.servers[0]!.onlyInMerged.length).toBeGreaterThan(0);
    for (const method of ['getOverview', 'getRouteTable', 'getDiscoveryViews', 'takeSnapshot', 'getHealthHistory']) {
      const body = (await rpc(method)).body;
      expect(body).not.toContain(sim.token!);
      expect(body).not.toContain('BEGIN CERTIFICATE');
    }
    const mode = await rpc('setDiscoveryMode', { mode: 'nopeer' });
    expect(JSON.parse(mode.body)).toMatchObject({ discoveryMode: 'nopeer' });
    expect(core.discoveryMode()).toBe('nopeer');
    await rpc('setDiscoveryMode', { mode: 'peer-aggregated' });
    expect((await rpc('setDiscoveryMode', { mode: 'sideways' })).status).toBe(400);
    expect((await rpc('setPolicy', { policy: 'pin:nobody' })).status).toBe(400);
    expect((await rpc('startRollout')).status).toBe(400);
    expect((await rpc('noSuchMethod')).status).toBe(404);
  });

  it('reads snapshot files and compares snapshots for the UI, with bodies as large as a snapshot can be', async () => {
    const taken = routingSnapshotSchema.parse(JSON.parse((await rpc('takeSnapshot')).body));
    // A snapshot of a large cluster: several MB of text, far over the 64 KiB of the other calls.
    const big = {
      ...taken,
      events: Array.from({ length: 20_000 }, (_, i) => ({
        ...(taken.events[0] ?? routingEvent()),
        seq: i + 1,
      })),
    };
    const text = serializeSnapshot(big);
    expect(text.length).toBeGreaterThan(4 * 1024 * 1024);
    const read = snapshotReadResultSchema.parse(JSON.parse((await rpc('readSnapshot', { text, file: 'big.json' })).body));
    expect(read.ok && read.snapshot.events.length).toBe(20_000);
    const broken = snapshotReadResultSchema.parse(
      JSON.parse((await rpc('readSnapshot', { text: text.slice(0, 1000), file: 'cut.json' })).body),
    );
    expect(broken).toMatchObject({ ok: false, error: { file: 'cut.json', reason: 'syntax' } });
    const huge = snapshotReadResultSchema.parse(
      JSON.parse((await rpc('readSnapshot', { text: '', file: 'huge.json', size: 50 * 1024 * 1024 })).body),
    );
    expect(huge).toMatchObject({ ok: false, error: { reason: 'too-large' } });
    const after = { ...taken, servers: taken.servers.map((s) => ({ ...s, gitVersion: 'v1.37.0-dev' })) };
    const diff = snapshotDiffSchema.parse(JSON.parse((await rpc('compareSnapshots', { before: big, after })).body));
    expect(diff.servers.upgraded).toEqual([{ name: 'sim-1', from: 'v1.36.0-dev', to: 'v1.37.0-dev' }]);
    // Arguments are checked: a snapshot that is not one is a 400 naming the field.
    const bad = await rpc('compareSnapshots', { before: taken, after: { ...taken, kind: 'PodList' } });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error).toMatchObject({
      code: 'PEERSCOPE_ERR_INVALID_ARGUMENTS',
      message: expect.stringContaining('after.kind'),
    });
    // The other calls keep their small limit; a snapshot call over its own limit gets a 413 it can show.
    expect((await rpc('setPolicy', { policy: 'x'.repeat(70 * 1024) })).status).toBe(413);
    const over = await rpc('readSnapshot', { text: 'x'.repeat(2 * MAX_SNAPSHOT_BYTES + 1024 * 1024), file: 'over.json' });
    expect(over.status).toBe(413);
    expect(JSON.parse(over.body).error).toMatchObject({
      code: 'PEERSCOPE_ERR_BODY_TOO_LARGE',
      message: expect.stringMatching(/^the body exceeds \d+ bytes$/),
    });
  }, 60_000);
});
