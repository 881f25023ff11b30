// `peerscope sim` as an operator runs it: the built CLI in its own process, real ports, real TLS.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { discoveryFixturesDir, repoRoot } from '../../../test/fixtures.js';

const children: ChildProcess[] = [];

function startSim(args: string[]): { child: ChildProcess; lines: string[]; lineMatching: (match: RegExp) => Promise<string> } {
  const child = spawn(process.execPath, ['bin/peerscope', 'sim', ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines: string[] = [];
  const waiters: { match: RegExp; resolve: (l: string) => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const w of [...waiters]) {
      if (!w.match.test(line)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(line);
    }
  });
  return {
    child,
    lines,
    lineMatching: (match) => {
      const seen = lines.find((l) => match.test(l));
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

function runSim(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, ['bin/peerscope', 'sim', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 30_000 });
}

describe('peerscope sim', () => {
  // dist/cli.mjs is built once for every test by test/global-setup.ts.
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });

  it('prints each server, writes a kubeconfig whose CA verifies them, and exits 0 on SIGTERM', async () => {
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'peerscope-sim-')), 'config');
    const sim = startSim([
      '--servers',
      '2',
      '--from',
      'v1.36-dev',
      '--to',
      'v1.37-dev',
      '--base-port',
      '0',
      '--write-kubeconfig',
      kubeconfig,
    ]);
    await sim.lineMatching(/^kubeconfig/);
    // A table as `servers` prints one: a header, then a row per server in aligned columns.
    expect(sim.lines[0]).toMatch(/^NAME +LEASE +URL +RELEASE$/);
    const servers = sim.lines.filter((l) => l.startsWith('sim-')).map((l) => l.split(/ {3,}/));
    expect(servers.map(([name, lease, , release]) => [name, lease, release])).toEqual([
      ['sim-1', 'apiserver-sim-1', 'v1.36-dev'],
      ['sim-2', 'apiserver-sim-2', 'v1.36-dev'],
    ]);
    const [header] = sim.lines;
    for (const line of sim.lines.slice(1, 3)) {
      expect(line.indexOf('apiserver-')).toBe(header!.indexOf('LEASE'));
      expect(line.indexOf('https://')).toBe(header!.indexOf('URL'));
      expect(line.indexOf('v1.36-dev')).toBe(header!.indexOf('RELEASE'));
    }
    expect(sim.lines.at(-1)).toContain(`--kubeconfig ${kubeconfig}`);

    const config = parse(readFileSync(kubeconfig, 'utf8')) as {
      clusters: { cluster: { 'certificate-authority-data': string } }[];
      users: { user: { token: string } }[];
    };
    const ca = Buffer.from(config.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString();
    const agent = new Agent({ connect: { ca } });
    try {
      for (const [, , url] of servers) {
        expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
        const res = await request(`${url}/version`, {
          dispatcher: agent,
          headers: { authorization: `Bearer ${config.users[0]!.user.token}` },
        });
        expect(res.statusCode).toBe(200);
        expect(((await res.body.json()) as { gitVersion: string }).gitVersion).toBe('v1.36.0-dev');
      }
    } finally {
      await agent.close();
    }
    sim.child.kill('SIGTERM');
    const [code] = await once(sim.child, 'exit');
    expect(code).toBe(0);
  }, 30_000);

  it('with --rollout prints one line per step and serves the new release afterwards', async () => {
    const sim = startSim(['--servers', '2', '--http', '--rollout', '--step-seconds', '0.2']);
    await sim.lineMatching(/^rollout: every server runs v1\.37-dev$/);
    expect(sim.lines.filter((l) => l.startsWith('rollout: sim-'))).toEqual([
      'rollout: sim-1 draining (v1.36-dev → v1.37-dev)',
      'rollout: sim-1 down (v1.36-dev → v1.37-dev)',
      'rollout: sim-1 up (v1.36-dev → v1.37-dev)',
      'rollout: sim-2 draining (v1.36-dev → v1.37-dev)',
      'rollout: sim-2 down (v1.36-dev → v1.37-dev)',
      'rollout: sim-2 up (v1.36-dev → v1.37-dev)',
    ]);
    for (const line of sim.lines.filter((l) => l.startsWith('sim-'))) {
      const res = await request(`${line.split(/ {3,}/)[2]}/version`);
      expect(((await res.body.json()) as { gitVersion: string }).gitVersion).toBe('v1.37.0-dev');
    }
    sim.child.kill('SIGINT');
    const [code] = await once(sim.child, 'exit');
    expect(code).toBe(0);
  }, 30_000);

  it('serves a release loaded from captured discovery documents', async () => {
    const dir = join(discoveryFixturesDir, 'v1.37-dev');
    const sim = startSim([
      '--http',
      '--release-file',
      `mine=${join(dir, 'aggregated_v2.json')}`,
      '--release-file',
      `mine=${join(dir, 'api__v1.json')}`,
      '--release',
      'mine',
      '--release',
      'v1.36-dev',
    ]);
    await sim.lineMatching(/--write-kubeconfig/);
    const [first] = sim.lines.filter((l) => l.startsWith('sim-')).map((l) => l.split(/ {3,}/));
    expect([first?.[0], first?.[3]]).toEqual(['sim-1', 'mine']);
    const res = await request(`${first![2]}/apis/scheduling.k8s.io/v1beta1/namespaces/default/podgroups`);
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    sim.child.kill('SIGTERM');
    expect((await once(sim.child, 'exit'))[0]).toBe(0);
  }, 30_000);

  it('-o json: the servers as one JSON document on standard output, every other line on standard error', async () => {
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'peerscope-sim-')), 'config');
    const sim = startSim(['--servers', '2', '--http', '-o', 'json', '--write-kubeconfig', kubeconfig]);
    const stderr: string[] = [];
    createInterface({ input: sim.child.stderr! }).on('line', (l) => stderr.push(l));
    const doc = JSON.parse(await sim.lineMatching(/^\{/)) as {
      servers: { name: string; lease: string; url: string; release: string; gitVersion: string }[];
      kubeconfig: string | null;
    };
    expect(doc.kubeconfig).toBe(kubeconfig);
    expect(doc.servers.map(({ name, lease, release, gitVersion }) => [name, lease, release, gitVersion])).toEqual([
      ['sim-1', 'apiserver-sim-1', 'v1.36-dev', 'v1.36.0-dev'],
      ['sim-2', 'apiserver-sim-2', 'v1.36-dev', 'v1.36.0-dev'],
    ]);
    const res = await request(`${doc.servers[1]!.url}/version`);
    expect(((await res.body.json()) as { gitVersion: string }).gitVersion).toBe('v1.36.0-dev');
    sim.child.kill('SIGTERM');
    expect((await once(sim.child, 'exit'))[0]).toBe(0);
    expect(sim.lines).toHaveLength(1);
    expect(stderr).toEqual([
      expect.stringContaining(`kubectl --kubeconfig ${kubeconfig} --context sim-1 get ns`),
      'peerscope: SIGTERM, shutting down',
    ]);
  }, 30_000);

  it('names an unknown release in one line and exits 2', () => {
    const r = runSim(['--release', 'v0.1']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('unknown release "v0.1"');
  });

  it('names an unreadable or invalid --release-file in one line and exits 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'peerscope-sim-'));
    const missing = join(dir, 'missing.json');
    const invalid = join(dir, 'invalid.json');
    writeFileSync(invalid, '{"kind": "Pod"}');
    for (const [file, expected] of [
      [missing, 'cannot read'],
      [invalid, '/kind'],
    ] as const) {
      const r = runSim(['--release-file', `mine=${file}`, '--release', 'mine']);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(file);
      expect(r.stderr).toContain(expected);
    }
    const malformed = runSim(['--release-file', 'no-equals-sign']);
    expect(malformed.status).toBe(2);
    expect(malformed.stderr.trim().split('\n')).toEqual([expect.stringContaining('"no-equals-sign" is not NAME=FILE')]);
  });

  it('refuses --release together with --servers, and a port in use, in one line with exit 2', async () => {
    const both = runSim(['--release', 'v1.36-dev', '--servers', '2']);
    expect(both.status).toBe(2);
    expect(both.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^peerscope: --release cannot be used with --servers: give one of them; see 'peerscope sim --help'$/),
    ]);

    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const r = runSim(['--servers', '1', '--base-port', String(port)]);
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([
        `peerscope: --base-port ${port}: 127.0.0.1:${port} is already in use; pick another port, or --base-port 0 for free ones`,
      ]);
    } finally {
      taken.close();
    }
  });
});
