// `peerscope sim` and `peerscope demo` as an operator runs them: the built CLI in its own process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';

function run(args: string[]): { child: ChildProcess; lines: string[]; next: (match: RegExp) => Promise<string> } {
  const child = spawn(process.execPath, ['bin/peerscope', ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: { match: RegExp; resolve: (l: string) => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const w of [...waiters]) if (w.match.test(line)) {
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

describe('the sim and demo commands', () => {
  it('sim prints each server, writes a kubeconfig that verifies them, and exits 0 on SIGTERM', async () => {
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'sim-')), 'config');
    const sim = run(['sim', '--servers', '2', '--from', 'v1.36-dev', '--to', 'v1.37-dev', '--base-port', '0', '--write-kubeconfig', kubeconfig]);
    await sim.next(/^kubeconfig/);
    const servers = sim.lines.filter((l) => l.startsWith('sim-')).map((l) => l.split('\t'));
    expect(servers.map((s) => s.slice(0, 2))).toEqual([['sim-1', 'v1.36-dev'], ['sim-2', 'v1.36-dev']]);
    const config = parse(readFileSync(kubeconfig, 'utf8')) as { clusters: { cluster: { 'certificate-authority-data': string } }[] };
    const ca = Buffer.from(config.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString();
    const agent = new Agent({ connect: { ca } });
    for (const [, , url] of servers) {
      const res = await request(`${url}/version`, { dispatcher: agent });
      expect((await res.body.json() as { gitVersion: string }).gitVersion).toBe('v1.36.0-dev');
    }
    await agent.close();
    sim.child.kill('SIGTERM');
    const [code] = await once(sim.child, 'exit');
    expect(code).toBe(0);
  });

  it('sim names an unknown release and exits 2', () => {
    const r = spawnSync(process.execPath, ['bin/peerscope', 'sim', '--release', 'v0.1'], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('unknown release "v0.1"');
  });

  it('demo serves the port in front of a rolling-out simulated cluster with traffic', async () => {
    const demo = run(['demo', '--listen', '127.0.0.1:0', '--step-seconds', '1', '--start-delay-seconds', '1', '--traffic', '20']);
    const first = await demo.next(/^Starting to serve on /);
    const port = /:(\d+)$/.exec(first)![1];
    await demo.next(/^rollout: sim-1 up/);
    const res = await request(`http://127.0.0.1:${port}/.peerscope/metrics`);
    const metrics = await res.body.text();
    expect(metrics).toMatch(/peerscope_requests_total\{outcome="local"/);
    demo.child.kill('SIGTERM');
    const [code] = await once(demo.child, 'exit');
    expect(code).toBe(0);
    expect(demo.lines.at(-1)).toMatch(/^demo: \d+ requests sent; through the port: local \d+/);
  });
});
