// `peerscope snapshot save --recording FILE --at TIME` on the recording of a real `peerscope demo` run
// (two simulated servers, one upgraded from v1.36-dev to v1.37-dev): the moment before the first
// rollout step shows every server at v1.36 with no skew, the end shows the upgrade, `snapshot diff`
// between them says so, `snapshot show` reads both and names what the recording left out, and the
// counters equal the port's events the recording holds up to the moment. A moment outside the
// recording, or --recording without --at, is refused naming the fault.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { routingSnapshotSchema, type SnapshotDiff } from '../contract/snapshot.js';
import { RecordingReader } from '../engine/recording/reader.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-snapshot-recording-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function peerscope(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/peerscope', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs the demo until its rollout has upgraded the first server and the port has seen it (a step later), recording into `file`. */
async function recordDemo(file: string): Promise<void> {
  const args = ['demo', '--listen', '127.0.0.1:0', '--servers', '2', '--step-seconds', '1', '--start-delay-seconds', '2'];
  const child = spawn(process.execPath, ['bin/peerscope', ...args, '--traffic', '20', '--record', file], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  try {
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (/^rollout: sim-2 down/.test(line)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`demo exited ${code}`)));
    });
    child.kill('SIGTERM');
    expect((await exited)[0]).toBe(0);
  } finally {
    child.kill('SIGKILL');
  }
}

describe('peerscope snapshot save --recording', () => {
  it('takes a snapshot of any recorded moment, read by snapshot show and snapshot diff', async () => {
    const file = join(dir, 'demo.recording.sqlite');
    await recordDemo(file);
    const reader = RecordingReader.open(file);
    let firstStep: number;
    let end: number;
    let portEventsToEnd: number;
    try {
      firstStep = reader.changes({}, ['step']).find((c) => c.subject === 'sim-1')!.at;
      end = reader.info().endedAt;
      // Up to and including the end's own millisecond (the window's `to` is exclusive).
      portEventsToEnd = reader.events({ to: end + 1 }, 10_000_000).filter((e) => e.source === 'port').length;
    } finally {
      reader.close();
    }
    expect(portEventsToEnd).toBeGreaterThan(0);

    const before = join(dir, 'before.json');
    const after = join(dir, 'after.json');
    const saved = peerscope('snapshot', 'save', '--recording', file, '--at', new Date(firstStep - 1).toISOString(), '--out', before);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toMatch(/^wrote .*before\.json: 2 servers, \d+ GVRs \(0 skewed\), 0 events\n$/);
    expect(peerscope('snapshot', 'save', '--recording', file, '--at', String(end), '--out', after).code).toBe(0);

    const early = routingSnapshotSchema.parse(JSON.parse(readFileSync(before, 'utf8')));
    const late = routingSnapshotSchema.parse(JSON.parse(readFileSync(after, 'utf8')));
    expect(early.takenAt).toBe(new Date(firstStep - 1).toISOString());
    expect(early.source.kind).toBe('sim');
    expect(early.servers.map((s) => [s.name, s.gitVersion?.startsWith('v1.36')])).toEqual([
      ['sim-1', true],
      ['sim-2', true],
    ]);
    expect(early.routeTable.skewed).toEqual([]);
    expect(early.recorded?.omitted.map((o) => o.part)).toEqual(expect.arrayContaining(['events', 'usage', 'impact']));
    expect(late.servers.find((s) => s.name === 'sim-1')?.gitVersion).toMatch(/^v1\.37/);
    expect(late.routeTable.skewed.length).toBeGreaterThan(0);
    // Every port request the recording holds up to the moment, counted as the live counters key them.
    expect(late.counters.reduce((n, c) => n + c.count, 0)).toBe(portEventsToEnd);
    expect(late.counters.every((c) => c.gvr === '' || /^[^/]*\/[^/]+\/[^/]+$/.test(c.gvr))).toBe(true);

    const shown = peerscope('snapshot', 'show', before);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/built from the recording demo\.recording\.sqlite at .*; left out \(not recorded\): events, usage/);
    const diff = peerscope('snapshot', 'diff', before, after, '-o', 'json');
    expect(diff.code, diff.stderr).toBe(0);
    const d = JSON.parse(diff.stdout) as SnapshotDiff;
    expect(d.servers.upgraded.map((u) => u.name)).toEqual(['sim-1']);
    expect(d.gvrs.find((g) => g.server === 'sim-1')?.gained.length).toBeGreaterThan(0);
    expect(d.skew.became.length).toBeGreaterThan(0);

    const outside = peerscope('snapshot', 'save', '--recording', file, '--at', '2001-01-01T00:00:00Z', '--out', join(dir, 'x.json'));
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/demo\.recording\.sqlite: 2001-01-01T00:00:00\.000Z is outside the recording \(/);
    const noAt = peerscope('snapshot', 'save', '--recording', file, '--out', join(dir, 'x.json'));
    expect(noAt.code).toBe(2);
    expect(noAt.stderr).toMatch(/--recording needs --at TIME/);
    const badAt = peerscope('snapshot', 'save', '--recording', file, '--at', 'yesterday', '--out', join(dir, 'x.json'));
    expect(badAt.stderr).toMatch(/--at "yesterday" is not an ISO 8601 time or epoch milliseconds/);
  }, 90_000);
});
