// A server by any name a person knows it by: `serve --policy pin:` takes the host name (`b`) and the
// lease name (`apiserver-b`) of a server found from a kubeconfig's identity leases, `--server NAME=`
// overrides it by either, the route header names it by host name (its identity beside it), and the
// demo's pin takes a simulated server's lease name. The built CLI, run
// for real against simulated HTTPS servers.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';
import { startDemoSession } from '../hosts/session/demo.js';
import { parseRouteHeader, ROUTE_HEADER } from '../engine/proxy/route-header.js';

/** Runs `serve` until it prints where it serves, then answers one GET through the port and stops. */
async function handlingOf(args: string[]): Promise<{ handling: string | null; header: string; stderr: string }> {
  const child = spawn(process.execPath, ['bin/peerscope', 'serve', '--listen', '127.0.0.1:0', '--server-metrics', '0', ...args], {
    cwd: repoRoot,
    env: { ...process.env, HTTPS_PROXY: '' },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    const address = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const m = /Starting to serve on (\S+)/.exec(stdout);
        if (m) resolve(m[1]!);
      });
      void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    const res = await fetch(`http://${address}/api/v1/namespaces`);
    await res.arrayBuffer();
    const header = res.headers.get(ROUTE_HEADER) ?? '';
    return { handling: parseRouteHeader(header)?.handling ?? null, header, stderr };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe('server names on the command line', () => {
  let sim: SimCluster;
  let kubeconfig: string;
  beforeAll(async () => {
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['a', 'b'] });
    kubeconfig = join(mkdtempSync(join(tmpdir(), 'cli-names-')), 'kubeconfig');
    writeFileSync(kubeconfig, sim.kubeconfig());
  });
  afterAll(() => sim?.close());

  it('serve --policy pin: takes the host name and the lease name', async () => {
    const byHost = await handlingOf(['--kubeconfig', kubeconfig, '--policy', 'pin:b']);
    expect(byHost.handling).toBe('apiserver-b');
    // The route header names the server as a person does, its identity beside it.
    expect(byHost.header).toBe('handling=b; answering=b; outcome=local; handling-id=apiserver-b; answering-id=apiserver-b');
    expect(byHost.stderr).toMatch(/peerscope: b \(apiserver-b\) https:\/\/\S+ ready v1\.37-dev, \d+ GVRs/);
    const byLease = await handlingOf(['--kubeconfig', kubeconfig, '--policy', 'pin:apiserver-b']);
    expect(byLease.handling).toBe('apiserver-b');
  }, 60_000);

  it('serve --server NAME= overrides a found server by its host name, which keeps its identity', async () => {
    const url = sim.server('b').info().url;
    const run = await handlingOf(['--kubeconfig', kubeconfig, '--server', `b=${url}`, '--policy', 'pin:b']);
    expect(run.handling).toBe('apiserver-b');
    // Overridden, not added: still two servers.
    expect(run.stderr.match(/ ready v1\.3\d-dev/g)).toHaveLength(2);
  }, 60_000);

  it("the demo's pin takes a simulated server's lease name", async () => {
    const session = await startDemoSession({
      listen: { host: '127.0.0.1', port: 0 },
      trafficRps: 0,
      policy: { kind: 'pin', server: 'apiserver-sim-2' },
    });
    try {
      expect(session.core.policy()).toEqual({ kind: 'pin', server: 'sim-2' });
    } finally {
      await session.close();
    }
    await expect(
      startDemoSession({ listen: { host: '127.0.0.1', port: 0 }, trafficRps: 0, policy: { kind: 'pin', server: 'nobody' } }),
    ).rejects.toThrow('--policy pin:nobody: no server is named "nobody"; pin one of sim-1, sim-2, sim-3');
  }, 60_000);
});
