// The real kubectl through `peerscope serve --kubeconfig FILE` (the built CLI in its own process) in
// front of a simulated HTTPS cluster of two releases that accepts only client certificates of its CA
// (issue 5 acceptance): Peerscope finds both apiservers from the kubeconfig's identity leases and
// reaches each with the kubeconfig's certificate; kubectl behaves as in the proxy-core issue.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEntries, loadRelease } from '../../proxy-core/engine/releases/index.js';
import { startSimCluster, type SimCluster, type SimRequestRecord } from '../../proxy-core/sim/index.js';
import { repoRoot } from '../fixtures.js';
import { hasKubectl, kubectlAt } from './kubectl.js';

const OLD = 'v1.36-dev';
const NEW = 'v1.37-dev';
// storagemigration.k8s.io/v1 storageversionmigrations: only v1.37-dev serves it.
const NEW_ONLY = 'storageversionmigrations.v1.storagemigration.k8s.io';
const NOTES = `apiVersion: v1
kind: ConfigMap
metadata:
  name: upgrade-notes
data:
  step: "2"
`;
const MIGRATION = `apiVersion: storagemigration.k8s.io/v1
kind: StorageVersionMigration
metadata:
  name: secrets-to-v1
spec:
  resource: {group: "", resource: secrets}
`;

function resourceNames(release: string): string[] {
  return [...new Set([...catalogEntries(loadRelease(release))].map((e) => e.resource.name))];
}

describe.skipIf(!hasKubectl)('the real kubectl through peerscope serve --kubeconfig (client certificates required)', () => {
  let sim: SimCluster;
  let serve: ChildProcess;
  let serveErr = '';
  let kubectl: ReturnType<typeof kubectlAt>;
  let dir: string;
  const received: { server: string; req: SimRequestRecord }[] = [];

  beforeAll(async () => {
    sim = await startSimCluster({
      releases: [loadRelease(OLD), loadRelease(NEW)],
      names: ['old', 'new'],
      auth: { token: false, clientCerts: true },
    });
    sim.onRequest((server, req) => received.push({ server, req }));
    const cert = await sim.issueClientCertificate('upgrade-operator', ['system:masters']);
    dir = mkdtempSync(join(tmpdir(), 'serve-kubectl-'));
    writeFileSync(join(dir, 'operator.crt'), cert.cert);
    writeFileSync(join(dir, 'operator.key'), cert.key, { mode: 0o600 });
    writeFileSync(join(dir, 'config'), sim.kubeconfig({ user: { 'client-certificate': 'operator.crt', 'client-key': 'operator.key' } }), {
      mode: 0o600,
    });
    writeFileSync(join(dir, 'migration.yaml'), MIGRATION);
    // create -f sends JSON; the simulated servers do not decode protobuf bodies (kubectl create configmap).
    writeFileSync(join(dir, 'notes.yaml'), NOTES);
    // Every request lands on the older server first, as a load balancer may do during a rollout.
    serve = spawn(
      process.execPath,
      ['bin/peerscope', 'serve', '--kubeconfig', join(dir, 'config'), '--listen', '127.0.0.1:0', '--policy', 'pin:apiserver-old'],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, HTTPS_PROXY: '', https_proxy: '' },
      },
    );
    serve.stderr!.on('data', (c) => (serveErr += c));
    const firstLine = await new Promise<string>((resolve, reject) => {
      createInterface({ input: serve.stdout! }).once('line', resolve);
      serve.once('exit', (code) => reject(new Error(`serve exited ${code}: ${serveErr}`)));
    });
    const m = /^Starting to serve on 127\.0\.0\.1:(\d+)$/.exec(firstLine);
    if (!m) throw new Error(`unexpected first line: ${firstLine}`);
    kubectl = kubectlAt(`http://127.0.0.1:${m[1]}`);
  });
  afterAll(async () => {
    if (serve && serve.exitCode === null) {
      serve.kill('SIGTERM');
      await once(serve, 'exit');
    }
    await sim?.close();
  });

  it('serve found both apiservers from the leases and probed them with the certificate', async () => {
    // Those lines follow "Starting to serve" on stdout.
    for (let i = 0; i < 100 && !/\(apiserver-old\) .*\n/.test(serveErr); i++) await new Promise((r) => setTimeout(r, 50));
    console.log(serveErr.trim());
    // By host name, the lease name beside it.
    expect(serveErr).toMatch(/peerscope: new \(apiserver-new\) https:\/\/127\.0\.0\.1:\d+ ready v1\.37-dev, \d+ GVRs/);
    expect(serveErr).toMatch(/peerscope: old \(apiserver-old\) https:\/\/127\.0\.0\.1:\d+ ready v1\.36-dev, \d+ GVRs/);
    expect(serveErr).not.toContain('warning');
  });

  it('api-resources lists the union of both releases', async () => {
    const r = await kubectl(['api-resources', '--no-headers', '-o', 'name']);
    expect(r.code, r.stderr).toBe(0);
    const listed = new Set(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('.')[0]),
    );
    for (const name of new Set([...resourceNames(OLD), ...resourceNames(NEW)])) expect(listed.has(name), name).toBe(true);
    const onlyNew = resourceNames(NEW).filter((n) => !resourceNames(OLD).includes(n));
    console.log(`api-resources: ${listed.size} names, incl. new-only ${onlyNew.join(', ')}`);
  });

  it("a resource only the newer server serves is reached, rerouted with x-kubernetes-peer-proxied: true, as the certificate's user", async () => {
    received.length = 0;
    const r = await kubectl(['get', NEW_ONLY, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).kind).toBe('List');
    const atNew = received.find((q) => q.req.url.startsWith('/apis/storagemigration.k8s.io/v1/storageversionmigrations'));
    expect(atNew?.server).toBe('new');
    expect(atNew?.req.headers['x-kubernetes-peer-proxied']).toBe('true');
    expect(atNew?.req.user).toEqual({
      name: 'upgrade-operator',
      groups: ['system:masters', 'system:authenticated'],
      via: 'client-certificate',
    });
    // A request the older server serves itself stays there, without the header.
    received.length = 0;
    expect((await kubectl(['get', 'configmaps'])).code).toBe(0);
    const local = received.find((q) => q.req.url.startsWith('/api/v1/namespaces/default/configmaps'));
    expect(local?.server).toBe('old');
    expect(local?.req.headers['x-kubernetes-peer-proxied']).toBeUndefined();
  });

  it('create, get and delete work, for a resource both serve and for one only the newer serves', async () => {
    const created = await kubectl(['create', '-f', join(dir, 'notes.yaml')]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('configmap/upgrade-notes created');
    const got = await kubectl(['get', 'configmap', 'upgrade-notes', '-o', 'json']);
    expect(JSON.parse(got.stdout).data).toEqual({ step: '2' });
    const deleted = await kubectl(['delete', 'configmap', 'upgrade-notes']);
    expect(deleted.stdout).toContain('configmap "upgrade-notes" deleted');

    // OpenAPI is the handling server's own, never merged (spec C24): the older server's has no
    // storagemigration.k8s.io/v1, so kubectl's client-side schema check cannot run; the create itself
    // is routed like any request and the newer server validates the object.
    const svm = await kubectl(['create', '--validate=false', '-f', join(dir, 'migration.yaml')]);
    expect(svm.code, svm.stderr).toBe(0);
    expect(svm.stdout).toContain('storageversionmigration.storagemigration.k8s.io/secrets-to-v1 created');
    const gotSvm = await kubectl(['get', NEW_ONLY, 'secrets-to-v1', '-o', 'json']);
    expect(JSON.parse(gotSvm.stdout).spec).toEqual({ resource: { group: '', resource: 'secrets' } });
    const delSvm = await kubectl(['delete', NEW_ONLY, 'secrets-to-v1']);
    expect(delSvm.code, delSvm.stderr).toBe(0);
    const after = await kubectl(['get', NEW_ONLY, 'secrets-to-v1']);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toContain('not found');
  });

  it("a resource no server serves gives kubectl's not-found", async () => {
    const r = await kubectl(['get', 'nosuchthings']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('the server doesn\'t have a resource type "nosuchthings"');
  });
});
