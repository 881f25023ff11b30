// `peerscope snapshot save | diff | show` as an operator runs them: the built CLI, taking snapshots
// straight from a simulated HTTPS cluster's kubeconfig before and after one server is upgraded.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { routingSnapshotSchema, snapshotDiffSchema } from '../contract/snapshot.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';

/** Runs the CLI without blocking this process: the simulated servers it talks to live here. */
function peerscope(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/peerscope', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

describe('peerscope snapshot (the CLI)', () => {
  let sim: SimCluster;
  let dir: string;
  let kubeconfig: string;
  beforeAll(async () => {
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.36-dev')], names: ['a', 'b'] });
    dir = mkdtempSync(join(tmpdir(), 'cli-snapshot-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, sim.kubeconfig());
  });
  afterAll(() => sim?.close());

  it('save --kubeconfig, before and after an upgrade; diff names the upgrade and the GVRs gained', async () => {
    const before = join(dir, 'before.json');
    const saved = await peerscope('snapshot', 'save', '--kubeconfig', kubeconfig, '--out', before);
    expect(saved.stderr).toBe('');
    expect(saved.stdout).toMatch(/^wrote .*before\.json: 2 servers, \d+ GVRs \(0 skewed\), 0 events\n$/);
    const text = readFileSync(before, 'utf8');
    const snapshot = routingSnapshotSchema.parse(JSON.parse(text));
    expect(snapshot.source.kind).toBe('kubeconfig');
    expect(snapshot.source.context).toBeTruthy();
    expect(snapshot.servers.map((s) => [s.name, s.gitVersion])).toEqual([
      ['apiserver-a', 'v1.36.0-dev'],
      ['apiserver-b', 'v1.36.0-dev'],
    ]);
    // The kubeconfig's credentials never land in a file kept with a change ticket.
    expect(sim.token).toBeTruthy();
    expect(text).not.toContain(sim.token!);
    expect(text).not.toContain('BEGIN CERTIFICATE');

    const b = sim.servers[1]!;
    await b.stop();
    b.setRelease(loadRelease('v1.37-dev'));
    await b.start();
    const after = join(dir, 'after.json');
    expect((await peerscope('snapshot', 'save', '--kubeconfig', kubeconfig, '--out', after)).stdout).toMatch(
      /2 servers, \d+ GVRs \([1-9]\d* skewed\)/,
    );

    const textDiff = await peerscope('snapshot', 'diff', before, after);
    expect(textDiff.code).toBe(0);
    // In words the server goes by its host name (b); the JSON keeps its identity (its lease name).
    expect(textDiff.stdout).toMatch(/^ {2}b: v1\.36-dev → v1\.37-dev$/m);
    const json = snapshotDiffSchema.parse(JSON.parse((await peerscope('snapshot', 'diff', before, after, '--output', 'json')).stdout));
    expect(json.servers.upgraded).toEqual([{ name: 'apiserver-b', from: 'v1.36.0-dev', to: 'v1.37.0-dev' }]);
    expect(json.gvrs.find((g) => g.server === 'apiserver-b')?.gained.length).toBeGreaterThan(0);
    expect(json.gvrs.find((g) => g.server === 'apiserver-a')?.gained ?? []).toEqual([]);
    expect(json.skew.became.length).toBeGreaterThan(0);

    const show = await peerscope('snapshot', 'show', after);
    expect(show.stdout).toMatch(
      /^NAME +LEASE +RELEASE +HEALTH +GVRS\na +apiserver-a +v1\.36-dev +ready +\d+\nb +apiserver-b +v1\.37-dev +ready +\d+\n/m,
    );
  }, 120_000);

  it('names what is wrong: a broken kubeconfig, a broken snapshot, --context without --kubeconfig', async () => {
    const brokenKubeconfig = join(dir, 'broken-kubeconfig');
    writeFileSync(brokenKubeconfig, 'apiVersion: v1\nkind: Config\ncurrent-context: nowhere\ncontexts: []\n');
    const k = await peerscope('snapshot', 'save', '--kubeconfig', brokenKubeconfig, '--out', join(dir, 'x.json'));
    expect(k.code).toBe(2);
    expect(k.stderr).toMatch(/broken-kubeconfig.*context "nowhere" is not defined/);

    const brokenSnapshot = join(dir, 'broken.json');
    writeFileSync(brokenSnapshot, '{\n  "apiVersion": "peerscope.dev/v1",\n  "kind": "RoutingSnapshot",\n  "servers": [,]\n}\n');
    const s = await peerscope('snapshot', 'show', brokenSnapshot);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/broken\.json:4:\d+/);

    const c = await peerscope('snapshot', 'save', '--context', 'prod', '--out', join(dir, 'y.json'));
    expect(c.code).toBe(2);
    expect(c.stderr).toBe('peerscope: --context goes with --kubeconfig; give --kubeconfig FILE too, or drop --context\n');
  });
});
