// The real kubectl (v1.32) against one simulated HTTPS kube-apiserver per release, through the
// kubeconfig the cluster writes: version, discovery, create/apply/get/watch/delete, and the error a
// real server gives for a resource type it does not serve.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEntries, loadRelease } from '../../proxy-core/engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../../proxy-core/sim/index.js';
import { callServer } from '../../proxy-core/test/sim-client.js';

const KUBECTL = '/usr/bin/kubectl';
const hasKubectl = existsSync(KUBECTL);
if (!hasKubectl) console.warn(`sim-kubectl tests skipped: ${KUBECTL} is not installed`);

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const MANIFESTS = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels: {app: web}
data:
  color: blue
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27}]
`;

const APPLIED = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  color: green
  size: large
`;

// A resource kubectl must not find on each release: v1.36-dev lacks lifecycle.k8s.io; v1.37-dev
// serves every resource name v1.36-dev has, so it is asked for one no release serves.
const MISSING: Record<string, string> = { 'v1.36-dev': 'evictionrequests', 'v1.37-dev': 'flowerpots' };

for (const releaseName of ['v1.36-dev', 'v1.37-dev']) {
  describe(`the real kubectl against a simulated ${releaseName} apiserver`, () => {
    const release = loadRelease(releaseName);
    let cluster: SimCluster;
    let dir: string;
    const openapiPaths: string[] = [];

    const kubectl = (args: readonly string[]): Promise<Run> =>
      new Promise((resolve) => {
        execFile(
          KUBECTL,
          ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args],
          { timeout: 25_000, env: { ...process.env, HOME: dir } },
          (err, stdout, stderr) => {
            resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
          },
        );
      });

    beforeAll(async () => {
      cluster = await startSimCluster({ releases: [release] });
      cluster.onRequest((_server, req) => {
        if (req.url.startsWith('/openapi')) openapiPaths.push(req.url);
      });
      dir = mkdtempSync(join(tmpdir(), 'peerscope-sim-kubectl-'));
      writeFileSync(join(dir, 'kubeconfig'), cluster.kubeconfig(), { mode: 0o600 });
      writeFileSync(join(dir, 'manifests.yaml'), MANIFESTS);
      writeFileSync(join(dir, 'applied.yaml'), APPLIED);
    });
    afterAll(() => cluster?.close());

    it.skipIf(!hasKubectl)('version reports the release', async () => {
      const r = await kubectl(['version', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).serverVersion.gitVersion).toBe(release.gitVersion);
    });

    it.skipIf(!hasKubectl)("api-resources lists exactly the release's resources", async () => {
      const r = await kubectl(['api-resources', '--no-headers', '-o', 'name']);
      expect(r.code, r.stderr).toBe(0);
      const listed = r.stdout.trim().split('\n').sort();
      const expected = [
        ...new Set([...catalogEntries(release)].map((e) => (e.group ? `${e.resource.name}.${e.group}` : e.resource.name))),
      ].sort();
      expect(listed).toEqual(expected);
    });

    it.skipIf(!hasKubectl)("api-versions lists exactly the release's group-versions", async () => {
      const r = await kubectl(['api-versions']);
      expect(r.code, r.stderr).toBe(0);
      const expected = release.groups.flatMap((g) => g.versions.map((v) => (g.name ? `${g.name}/${v.version}` : v.version))).sort();
      expect(r.stdout.trim().split('\n').sort()).toEqual(expected);
    });

    it.skipIf(!hasKubectl)('create -f makes a ConfigMap and a Deployment, get -o json reads them back', async () => {
      const created = await kubectl(['create', '-f', join(dir, 'manifests.yaml')]);
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout).toContain('configmap/settings created');
      expect(created.stdout).toContain('deployment.apps/web created');
      // kubectl validated on the server (fieldValidation in the v3 documents), never asking for v2.
      expect(openapiPaths.some((p) => p.startsWith('/openapi/v3/api/v1'))).toBe(true);
      expect(openapiPaths.some((p) => p.startsWith('/openapi/v2'))).toBe(false);

      const got = await kubectl(['get', 'deployment', 'web', '-o', 'json']);
      expect(got.code, got.stderr).toBe(0);
      const deployment = JSON.parse(got.stdout);
      expect(deployment).toMatchObject({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'default', generation: 1 },
        spec: { replicas: 2 },
      });
      expect(deployment.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    });

    it.skipIf(!hasKubectl)('apply --server-side merges into the live object', async () => {
      const applied = await kubectl(['apply', '--server-side', '-f', join(dir, 'applied.yaml')]);
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout).toContain('configmap/settings serverside-applied');
      const got = await kubectl(['get', 'configmap', 'settings', '-o', 'json']);
      expect(JSON.parse(got.stdout).data).toEqual({ color: 'green', size: 'large' });
    });

    it.skipIf(!hasKubectl)('get -w sees an object created after it started', async () => {
      const child = spawn(
        KUBECTL,
        ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), 'get', 'configmaps', '-w'],
        { env: { ...process.env, HOME: dir } },
      );
      let output = '';
      const sawLine = (text: string) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`kubectl get -w printed no "${text}" line; output: ${output}`)), 15_000);
          const check = () => {
            if (output.split('\n').some((l) => l.startsWith(text))) {
              clearTimeout(timer);
              resolve();
            }
          };
          child.stdout.on('data', (d: Buffer) => {
            output += d.toString();
            check();
          });
          check();
        });
      try {
        await sawLine('settings');
        const url = cluster.servers[0]?.info().url as string;
        const res = await callServer(cluster, url, '/api/v1/namespaces/default/configmaps', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' } }),
        });
        expect(res.status).toBe(201);
        await sawLine('watched');
      } finally {
        child.kill();
      }
    });

    it.skipIf(!hasKubectl)('delete removes the objects', async () => {
      const r = await kubectl(['delete', 'configmap', 'settings', 'watched']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('configmap "settings" deleted');
      const after = await kubectl(['get', 'configmap', 'settings']);
      expect(after.code).not.toBe(0);
      expect(after.stderr).toContain('configmaps "settings" not found');
    });

    it.skipIf(!hasKubectl)('get of a resource the release does not serve fails as against a real server', async () => {
      const missing = MISSING[releaseName] as string;
      const r = await kubectl(['get', missing]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`error: the server doesn't have a resource type "${missing}"`);
    });
  });
}
