// bin/peerscope starts Node again with V8's young generation capped (docs/decisions.md, "The port caps
// V8's young generation"): the running `serve` — the same process the caller spawned — has the flag on
// its command line, unless the caller gave one or PEERSCOPE_MAX_SEMI_SPACE_MIB=0 asked for V8's default.
// On Linux the same start sets glibc's trim threshold and arena count in its environment ("glibc gives
// back what a burst freed"), unless the caller set them.
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

interface Started {
  /** The node flags before the script. */
  readonly flags: string[];
  /** MALLOC_TRIM_THRESHOLD_ and MALLOC_ARENA_MAX in the process's environment as glibc read it at start. */
  readonly malloc: string[];
}

/** The node flags and trim threshold of a running `peerscope serve` started with `nodeFlags` and `env`, read from /proc. */
async function serveStarted(sim: SimCluster, nodeFlags: string[], env: Record<string, string | undefined>): Promise<Started> {
  const servers = sim.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]);
  const child = spawn(process.execPath, [...nodeFlags, 'bin/peerscope', 'serve', ...servers, '--listen', '127.0.0.1:0'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    await once(createInterface({ input: child.stdout! }), 'line');
    const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
    const environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0');
    return {
      // The flags come before the script, which the restart names by its full path.
      flags: argv.slice(
        1,
        argv.findIndex((a) => a.endsWith('bin/peerscope')),
      ),
      malloc: environ.filter((e) => /^MALLOC_(TRIM_THRESHOLD_|ARENA_MAX)=/.test(e)).sort(),
    };
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

  const flags = async (nodeFlags: string[], env: Record<string, string>) => (await serveStarted(sim, nodeFlags, env)).flags;

  it('restarts node with --max-semi-space-size=8 in the same process', async () => {
    expect(await flags([], {})).toEqual(['--max-semi-space-size=8']);
  });

  it('keeps a cap the caller gave, and V8 default when asked', async () => {
    expect(await flags(['--max-semi-space-size=4'], {})).toEqual(['--max-semi-space-size=4']);
    expect(await flags([], { PEERSCOPE_MAX_SEMI_SPACE_MIB: '0' })).toEqual([]);
    expect(await flags([], { PEERSCOPE_MAX_SEMI_SPACE_MIB: '16' })).toEqual(['--max-semi-space-size=16']);
  });

  it.runIf(process.platform === 'linux')("sets glibc's trim threshold and arena count, keeping what the caller set", async () => {
    const unset = { MALLOC_TRIM_THRESHOLD_: undefined, MALLOC_ARENA_MAX: undefined };
    expect((await serveStarted(sim, [], unset)).malloc).toEqual(['MALLOC_ARENA_MAX=2', 'MALLOC_TRIM_THRESHOLD_=1048576']);
    // With a cap the caller gave, the restart happens for the malloc settings alone.
    const own = await serveStarted(sim, ['--max-semi-space-size=4'], unset);
    expect(own).toEqual({ flags: ['--max-semi-space-size=4'], malloc: ['MALLOC_ARENA_MAX=2', 'MALLOC_TRIM_THRESHOLD_=1048576'] });
    const set = await serveStarted(sim, [], { MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_ARENA_MAX: undefined });
    expect(set.malloc).toEqual(['MALLOC_ARENA_MAX=2', 'MALLOC_TRIM_THRESHOLD_=131072']);
  });
});

if (!hasExecve || !existsSync('/proc/self/cmdline'))
  console.log('cli-young-generation: skipped: this Node has no process.execve or this system no /proc');
