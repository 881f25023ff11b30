// The app's recordings folder on a real demo session: the demo records into the folder, a past
// recording opens as a read-only session whose every call answers from the file, the live session
// comes back, and files from elsewhere are copied in — or refused naming the file and the fault.
import type { Recordings } from '../../contract/recordings.js';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRelease } from '../../engine/releases/index.js';
import { startSimCluster } from '../../sim/index.js';
import { prepareClusterSession } from './cluster.js';
import { startDemoSession, type DemoSession } from './demo.js';
import { createRecordingsLibrary, type RecordingsLibrary } from './recordings-library.js';
import { newRecordingName, readRetentionSettings, SETTINGS_FILE } from './recordings-folder.js';
import { createSwitchingService, type SwitchingService } from './switching-service.js';

const root = mkdtempSync(join(tmpdir(), 'recordings-library-'));
const folder = join(root, 'recordings');
let switching: SwitchingService;
let library: RecordingsLibrary;
let demo: DemoSession;
let recordingName: string;

async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  switching = createSwitchingService();
  library = createRecordingsLibrary({ service: switching, folder });
  const file = library.newRecordingFile('demo');
  demo = await startDemoSession({
    listen: { host: '127.0.0.1', port: 0 },
    servers: 2,
    trafficRps: 20,
    stepSeconds: 1,
    rolloutAfterSeconds: 3,
    record: { file },
  });
  switching.switchTo({ service: demo.service, label: 'simulated cluster' });
  // The whole rollout: both servers upgraded, recorded as it happened.
  await until(async () => (await demo.service.getOverview()).sim?.rollout.phase === 'done', 30_000);
  // The port sees the last server's new release when it next reads it, and the recording writes each
  // second: wait for both, or the file's last state can lag the live one compared below.
  await until(async () => new Set((await demo.service.getOverview()).servers.map((s) => s.gitVersion)).size === 1, 10_000);
  await new Promise((r) => setTimeout(r, 1_500));
  recordingName = file.slice(folder.length + 1);
}, 45_000);
afterAll(async () => {
  library?.service.close();
  await demo?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the recordings folder', () => {
  it('names a new recording by what and when', () => {
    expect(newRecordingName('demo', new Date(Date.UTC(2026, 10, 28, 14, 32, 5)))).toBe('demo-20261128-143205.recording.sqlite');
    expect(newRecordingName('arn:aws:eks/prod', new Date(Date.UTC(2026, 10, 28, 14, 32, 5)))).toBe(
      'arn_aws_eks_prod-20261128-143205.recording.sqlite',
    );
  });

  it('lists the demo being recorded, with its servers, releases, size and span, and will not delete it', async () => {
    const listing = await folderOf(library);
    expect(listing.folder).toBe(folder);
    expect(listing.picker).toBe('upload');
    expect(listing.retention).toEqual({ maxAgeDays: 14, maxBytes: 5 * 1024 ** 3 });
    const [entry] = listing.recordings;
    expect(entry).toMatchObject({ name: recordingName, writing: true });
    expect(entry!.name).toMatch(/^demo-\d{8}-\d{6}\.recording\.sqlite$/);
    expect(entry!.servers).toEqual(demo.sim.servers.map((s) => s.name));
    expect(entry!.releases!.length).toBe(2);
    expect(entry!.bytes).toBeGreaterThan(4096);
    expect(listing.usedBytes).toBe(entry!.bytes);
    expect(entry!.events).toBeGreaterThan(0);
    await expect(library.service.deleteRecording({ name: recordingName })).rejects.toThrow(/being written/);
  });

  it('opens a recording as a read-only session answered from the file, then goes back to live', async () => {
    const live = await library.service.getOverview();
    expect(live.listen).not.toBeNull();
    const opened = await library.service.openRecording({ name: recordingName });
    expect(opened.recordings.find((r) => r.name === recordingName)).toMatchObject({ open: true, writing: true });
    expect(switching.current()?.label).toBe(`recording ${recordingName}`);

    const overview = await library.service.getOverview();
    expect(overview.listen).toBeNull();
    expect(overview.sim).toBeUndefined();
    // The last recorded state: every server upgraded to the release the live servers now run.
    expect(overview.servers.map((s) => [s.name, s.gitVersion])).toEqual(live.servers.map((s) => [s.name, s.gitVersion]));
    expect(overview.totals.local + overview.totals.rerouted).toBeGreaterThan(0);
    const table = await library.service.getRouteTable();
    expect(table.rows.length).toBeGreaterThan(10);
    const timeline = await library.service.getRecordingTimeline();
    expect(timeline).toMatchObject({ ended: true, file: join(folder, recordingName) });
    // The moment every server's release was first recorded, before the rollout: all on the release they started at.
    const firstSeen = Math.max(...timeline!.servers.map((srv) => srv.changes.find((c) => c.kind === 'release')!.at));
    const before = await library.service.getStateAt({ at: firstSeen });
    expect(before.servers.map((srv) => srv.gitVersion)).toEqual(live.servers.map(() => expect.stringMatching(/^v1\.36\./)));
    await expect(library.service.setPolicy({ policy: 'random' })).rejects.toMatchObject({
      code: 'PEERSCOPE_ERR_READ_ONLY',
      message: expect.stringMatching(/read-only/),
    });
    await expect(library.service.startRollout()).rejects.toMatchObject({ code: 'PEERSCOPE_ERR_READ_ONLY' });
    await expect(library.service.deleteRecording({ name: recordingName })).rejects.toThrow(/being written|shown now/);

    const back = await library.service.leaveRecording();
    expect(back.recordings.some((r) => r.open)).toBe(false);
    expect(switching.current()?.service).toBe(demo.service);
    expect((await library.service.getOverview()).listen?.port).toBe(demo.address.port);
  });

  it('copies a file from elsewhere in, or refuses it naming the file and the fault, keeping nothing', async () => {
    const elsewhere = mkdtempSync(join(root, 'elsewhere-'));
    const foreign = join(elsewhere, 'notes.recording.sqlite');
    writeFileSync(foreign, 'just some text, not a database\n'.repeat(10));
    expect(() => library.importFile(foreign, 'notes.recording.sqlite')).toThrow(
      /^notes\.recording\.sqlite: not a Peerscope recording: not an SQLite database/,
    );
    expect(readdirSync(folder).filter((n) => n.startsWith('.import-'))).toEqual([]);

    const copied = library.importFile(join(folder, recordingName), recordingName);
    expect(copied).not.toBe(recordingName);
    expect(copied).toMatch(/^demo-\d{8}-\d{6}-2\.recording\.sqlite$/);
    const listing = await library.service.openRecording({ name: copied });
    expect(listing.recordings.find((r) => r.name === copied)).toMatchObject({ open: true });
    expect(listing.recordings.find((r) => r.name === copied)!.writing).toBeUndefined();
    await library.service.leaveRecording();
    await library.service.deleteRecording({ name: copied });
    expect(existsSync(join(folder, copied))).toBe(false);
    await expect(library.service.openRecording({ name: '../outside.recording.sqlite' })).rejects.toThrow(
      /file name in the recordings folder/,
    );
  });

  it('keeps the cap set in the settings file, and names the file and field of a broken one', async () => {
    const set = await library.service.setRetention({ maxAgeDays: 3, maxBytes: 1024 ** 3 });
    expect(set.retention).toEqual({ maxAgeDays: 3, maxBytes: 1024 ** 3 });
    expect(readRetentionSettings(folder)).toEqual({ retention: { maxAgeDays: 3, maxBytes: 1024 ** 3 } });
    writeFileSync(join(folder, SETTINGS_FILE), '{"maxAgeDays": "two weeks", "maxBytes": 100}');
    const broken = await folderOf(library);
    expect(broken.retention).toEqual({ maxAgeDays: 14, maxBytes: 5 * 1024 ** 3 });
    expect(broken.settingsProblem).toMatch(new RegExp(`^${join(folder, SETTINGS_FILE)}: maxAgeDays: .*; the defaults are used$`));
    writeFileSync(join(folder, SETTINGS_FILE), '{"maxAgeDays": 14,');
    expect((await folderOf(library)).settingsProblem).toMatch(/retention\.json: not JSON/);
  });
});

describe('a kubeconfig session opened in the app', () => {
  it("records into the folder under the context's name, and its recording opens with the cluster's servers", async () => {
    const sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')] });
    try {
      const kubeconfig = join(root, 'kubeconfig');
      writeFileSync(kubeconfig, sim.kubeconfig());
      const prepared = await prepareClusterSession({
        kubeconfig,
        listen: { host: '127.0.0.1', port: 0 },
        record: { file: (context) => library.newRecordingFile(context) },
      });
      const session = await prepared.start();
      let name: string;
      try {
        const live = await session.service.getOverview();
        await until(async () => (await session.service.getRecordingTimeline())?.servers.length === live.servers.length, 10_000);
        const writing = (await folderOf(library)).recordings.find((r) => r.writing)!;
        name = writing.name;
        expect(name.startsWith(`${prepared.contextName.replace(/[^A-Za-z0-9._-]+/g, '_')}-`)).toBe(true);
        expect(writing.servers!.sort()).toEqual(live.servers.map((s) => s.name).sort());
      } finally {
        await session.close();
      }
      await library.service.openRecording({ name });
      expect((await library.service.getOverview()).servers.map((s) => s.gitVersion).sort()).toEqual(['v1.36.0-dev', 'v1.37.0-dev']);
      await library.service.leaveRecording();
    } finally {
      await sim.close();
    }
  });
});

describe('the cap, applied when a session starts and on a period while it runs', () => {
  it('removes what is over the cap at a new session and then on each period, never the file being written', async () => {
    const dir = join(root, 'capped');
    mkdirSync(dir);
    const old = (name: string, daysAgo: number) => {
      const at = new Date(Date.now() - daysAgo * 86_400_000);
      writeFileSync(join(dir, name), Buffer.alloc(64 * 1024, 1));
      utimesSync(join(dir, name), at, at);
    };
    old('last-month.recording.sqlite', 30);
    const capped = createRecordingsLibrary({ service: createSwitchingService(), folder: dir, pruneIntervalMs: 100 });
    try {
      const writing = capped.newRecordingFile('demo');
      expect(readdirSync(dir)).not.toContain('last-month.recording.sqlite');
      // The session's file, aged past the cap while it is written, and another that ages meanwhile.
      writeFileSync(writing, Buffer.alloc(1024, 1));
      utimesSync(writing, new Date(0), new Date(0));
      old('two-weeks-ago.recording.sqlite', 15);
      await until(async () => !existsSync(join(dir, 'two-weeks-ago.recording.sqlite')), 5_000);
      expect(existsSync(writing)).toBe(true);
      const removed = (await folderOf(capped)).removed;
      expect(removed.map((r) => [r.name, r.reason])).toEqual([
        ['two-weeks-ago.recording.sqlite', 'last written 15 days ago, over the 14-day cap'],
        ['last-month.recording.sqlite', 'last written 30 days ago, over the 14-day cap'],
      ]);
    } finally {
      capped.service.close();
    }
  });
});

/** What a library's folder holds: a host with a library always answers one (null is for hosts without). */
async function folderOf(library: { service: { getRecordings(): Promise<Recordings | null> } }): Promise<Recordings> {
  const folder = await library.service.getRecordings();
  if (!folder) throw new Error('a recordings library answered no folder');
  return folder;
}
