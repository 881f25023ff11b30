// `peerscope demo` as an operator runs it: the built CLI in its own process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';

function run(args: string[]): { child: ChildProcess; lines: string[]; next: (match: RegExp) => Promise<string> } {
  const child = spawn(process.execPath, ['bin/peerscope', ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: { match: RegExp; resolve: (l: string) => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const w of [...waiters])
      if (w.match.test(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
  });
  return {
    child,
    lines,
    next: (match) => {
      const seen = lines.find((l) => match.test(l));
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

describe('the demo command', () => {
  // The sim command's own cases live beside it, in proxy-core/hosts/cli/sim.test.ts.

  it('demo serves the port in front of a rolling-out simulated cluster with traffic', async () => {
    const demo = run(['demo', '--listen', '127.0.0.1:0', '--step-seconds', '1', '--start-delay-seconds', '1', '--traffic', '20']);
    const first = await demo.next(/^Starting to serve on /);
    const port = /:(\d+)$/.exec(first)![1];
    await demo.next(/^rollout: sim-1 up/);
    const res = await request(`http://127.0.0.1:${port}/.peerscope/metrics`);
    const metrics = await res.body.text();
    expect(metrics).toMatch(/peerscope_requests_total\{outcome="local"/);
    // The cluster source: the core follows the servers' audit logs, which count what they answered.
    expect(metrics).toMatch(/peerscope_cluster_requests_total\{server="(sim-\d)",server_id="\1",outcome="local",code="200"\} \d+/);
    // Two steps later, the port's probes have seen sim-1's new release.
    await demo.next(/^rollout: sim-2 down/);
    demo.child.kill('SIGTERM');
    const [code] = await once(demo.child, 'exit');
    expect(code).toBe(0);
    expect(demo.lines.at(-3)).toMatch(/^demo: \d+ requests sent; through the port: local \d+/);
    expect(demo.lines.at(-2)).toMatch(/^demo: \d+ requests sent straight to the servers; in their audit logs: local \d+/);
    // Recorded by default into its temporary folder, which is kept with the recording alone in it.
    const file = /^demo: recorded to (\S+) \(peerscope recording open \1\)$/.exec(demo.lines.at(-1) ?? '')?.[1];
    expect(file, demo.lines.at(-1)).toMatch(/peerscope-demo-\w+\/demo-\d{8}-\d{6}\.recording\.sqlite$/);
    try {
      expect(readdirSync(dirname(file!))).toEqual([basename(file!)]);
      const opened = spawnSync(process.execPath, ['bin/peerscope', 'recording', 'open', file!], { cwd: repoRoot, encoding: 'utf8' });
      expect(opened.status, opened.stderr).toBe(0);
      expect(opened.stdout).toMatch(/\n {2}sim-1 {2}v1\.36-dev → v1\.37-dev at /);
      expect(opened.stdout).toMatch(/\n {2}port: local \d+/);
    } finally {
      rmSync(dirname(file!), { recursive: true, force: true });
    }
  });
});
