// `peerscope serve` as an operator runs it: the built CLI in its own process, in front of simulated
// HTTPS apiservers, with a CA file and a token file.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';

function startServe(args: string[]): Promise<{ child: ChildProcess; firstLine: string; stderr: () => string }> {
  const child = spawn(process.execPath, ['bin/peerscope', 'serve', ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const lines = createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    lines.once('line', (firstLine) => resolve({ child, firstLine, stderr: () => err }));
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

describe('peerscope serve (the CLI)', () => {
  let sim: SimCluster;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['old', 'new'] });
    dir = mkdtempSync(join(tmpdir(), 'serve-'));
    writeFileSync(join(dir, 'ca.crt'), sim.ca ?? '');
    writeFileSync(join(dir, 'token'), `${sim.token}\n`);
  });
  afterAll(() => sim?.close());
  /** Both simulated servers with their CA and token, on a free port, the older one pinned as the handling server. */
  const pinnedOld = (): string[] => [
    ...sim.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]),
    '--ca',
    join(dir, 'ca.crt'),
    '--token-file',
    join(dir, 'token'),
    '--listen',
    '127.0.0.1:0',
    '--policy',
    'pin:old',
  ];

  it('prints "Starting to serve on HOST:PORT" first, routes, and exits 0 on SIGTERM', async () => {
    const { child, firstLine } = await startServe(pinnedOld());
    try {
      const m = /^Starting to serve on 127\.0\.0\.1:(\d+)$/.exec(firstLine);
      expect(m, firstLine).not.toBeNull();
      const res = await request(`http://127.0.0.1:${m![1]}/apis/storagemigration.k8s.io/v1/storageversionmigrations`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-peerscope-route']).toBe('handling=old; answering=new; outcome=rerouted');
      await res.body.text();
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it("P8 by default; --faithful gives the older handling server's own legacy discovery (v1.36-dev pinned, storagemigration.k8s.io/v1 only on v1.37-dev)", async () => {
    const common = pinnedOld();
    const get = async (port: string, path: string) => {
      const res = await request(`http://127.0.0.1:${port}${path}`, { headers: { accept: 'application/json' } });
      return { status: res.statusCode, route: res.headers['x-peerscope-route'], body: await res.body.text() };
    };
    for (const faithful of [false, true]) {
      const { child, firstLine } = await startServe(faithful ? [...common, '--faithful'] : common);
      try {
        const port = /(\d+)$/.exec(firstLine)![1]!;
        const groups = await get(port, '/apis');
        const gv = await get(port, '/apis/storagemigration.k8s.io/v1');
        if (faithful) {
          expect(groups.route).toBe('handling=old; answering=old; outcome=non-resource');
          expect(groups.body).not.toContain('"storagemigration.k8s.io/v1"');
          expect(gv).toMatchObject({ status: 404, route: 'handling=old; answering=old; outcome=non-resource' });
        } else {
          expect(groups.route).toBe('handling=old; answering=-; outcome=discovery-merged');
          expect(groups.body).toContain('"storagemigration.k8s.io/v1"');
          expect(gv).toMatchObject({ status: 200, route: 'handling=old; answering=new; outcome=rerouted' });
          expect(JSON.parse(gv.body)).toMatchObject({ kind: 'APIResourceList', groupVersion: 'storagemigration.k8s.io/v1' });
        }
      } finally {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    }
  });

  it('shows defaults in --help as they are typed', () => {
    // One line per flag, whatever the width the help is wrapped at.
    const help = spawnSync(process.execPath, ['bin/peerscope', 'serve', '--help'], { cwd: repoRoot, encoding: 'utf8' }).stdout.replace(
      /\s+/g,
      ' ',
    );
    for (const shown of [
      'where the local port listens (default: 127.0.0.1:8001)',
      'pin:NAME (default: round-robin)',
      '(default: peer-aggregated)',
      "--faithful do exactly what the servers' own Mixed Version Proxy does",
    ])
      expect(help).toContain(shown);
    for (const flag of ['--accept-origins <regexes>', '--reject-paths <regexes>', '--reject-methods <regexes>']) {
      const entry = help.slice(help.indexOf(flag)).split(' --')[0];
      expect(entry).toMatch(/\(default: none\)$/);
    }
    expect(help).not.toMatch(/\(default: [[{"]/);
  });

  it('bad input is named on one line with exit code 2', () => {
    const run = (args: string[]) => spawnSync(process.execPath, ['bin/peerscope', 'serve', ...args], { cwd: repoRoot, encoding: 'utf8' });
    const badUrl = run(['--server', 'a=ftp://x']);
    expect(badUrl.status).toBe(2);
    expect(badUrl.stderr).toContain('"ftp://x" must be http:// or https://');
    const badPin = run(['--server', 'a=http://127.0.0.1:1', '--policy', 'pin:b']);
    expect(badPin.status).toBe(2);
    expect(badPin.stderr.trim()).toBe('peerscope: --policy pin:b: no server is named "b"; pin one of a');
    const badPattern = run(['--server', 'a=http://127.0.0.1:1', '--reject-paths', '^/ok,^/api/(']);
    expect(badPattern.status).toBe(2);
    // The engine's reason in brackets is V8's own words, which differ between Node releases.
    expect(badPattern.stderr).toMatch(
      /^peerscope: --reject-paths \^\/ok,\^\/api\/\(: "\^\/api\/\(" is not a regular expression \(.*\); see 'peerscope serve --help'\n$/,
    );
    const notCa = join(mkdtempSync(join(tmpdir(), 'cli-serve-ca-')), 'ca.pem');
    writeFileSync(notCa, 'not a certificate\n');
    const badCa = run(['--server', 'a=https://127.0.0.1:1', '--ca', notCa]);
    expect(badCa.status).toBe(2);
    expect(badCa.stderr.trim()).toBe(
      `peerscope: --ca ${notCa}: holds no PEM certificate (-----BEGIN CERTIFICATE-----); see 'peerscope serve --help'`,
    );
    const badKubeconfig = run(['--kubeconfig', '/nonexistent/config']);
    expect(badKubeconfig.status).toBe(2);
    expect(badKubeconfig.stderr.trim()).toBe(
      "peerscope: /nonexistent/config: cannot read the kubeconfig: no such file or directory (ENOENT); see 'peerscope serve --help'",
    );
  });
});
