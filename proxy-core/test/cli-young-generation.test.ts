// bin/peerscope starts Node again with V8's young generation capped (docs/decisions.md, "The port caps
// V8's young generation"): the running `serve` — the same process the caller spawned — has the flag on
// its command line, unless the caller gave one or PEERSCOPE_MAX_SEMI_SPACE_MIB=0 asked for V8's default.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';

const repoRoot = join(import.meta.dirname, '..', '..');
const hasExecve = typeof (process as { execve?: unknown }).execve === 'function';

/** The node flags of a running `peerscope serve` started with `nodeFlags` and `env`, read from /proc. */
async function serveFlags(sim: SimCluster, nodeFlags: string[], env: Record<string, string>): Promise<string[]> {
  const servers = sim.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]);
  const child = spawn(process.execPath, [...nodeFlags, 'bin/peerscope', 'serve', ...servers, '--listen', '127.0.0.1:0'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    await once(createInterface({ input: child.stdout! }), 'line');
    const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
    // The flags come before the script, which the restart names by its full path.
    return argv.slice(
      1,
      argv.findIndex((a) => a.endsWith('bin/peerscope')),
    );
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

describe.runIf(existsSync('/proc/self/cmdline') && hasExecve)('bin/peerscope caps the young generation', () => {
  let sim: SimCluster;
  beforeAll(async () => {
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev')], http: true });
  });
  afterAll(async () => sim.close());

  it('restarts node with --max-semi-space-size=8 in the same process', async () => {
    expect(await serveFlags(sim, [], {})).toEqual(['--max-semi-space-size=8']);
  });

  it('keeps a cap the caller gave, and V8 default when asked', async () => {
    expect(await serveFlags(sim, ['--max-semi-space-size=4'], {})).toEqual(['--max-semi-space-size=4']);
    expect(await serveFlags(sim, [], { PEERSCOPE_MAX_SEMI_SPACE_MIB: '0' })).toEqual([]);
    expect(await serveFlags(sim, [], { PEERSCOPE_MAX_SEMI_SPACE_MIB: '16' })).toEqual(['--max-semi-space-size=16']);
  });
});

if (!hasExecve || !existsSync('/proc/self/cmdline'))
  console.log('cli-young-generation: skipped: this Node has no process.execve or this system no /proc');
