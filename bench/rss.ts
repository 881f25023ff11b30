// Idle RSS of `peerscope serve` in its own process, in front of two simulated apiservers.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { loadRelease } from '../proxy-core/engine/releases/index.js';
import { startSimCluster } from '../proxy-core/sim/index.js';
import { IDLE_SETTLE_MS } from './throughput/plan.js';

export async function idleRssMiB(settleMs = IDLE_SETTLE_MS): Promise<number> {
  const sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], http: true });
  const child = spawn(
    process.execPath,
    ['bin/peerscope', 'serve', ...sim.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]), '--listen', '127.0.0.1:0'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  try {
    await once(createInterface({ input: child.stdout! }), 'line');
    await new Promise((r) => setTimeout(r, settleMs));
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return kb / 1024;
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
    await sim.close();
  }
}
