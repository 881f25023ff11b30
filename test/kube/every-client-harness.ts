// What the every-client kube tests share: the kind only the newer release serves, its object and
// chart, running a client binary, a kubeconfig whose cluster is a port, and putting back the
// kind's API registration an older server removes at its start-up.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { repoRoot } from '../fixtures.js';
import { kubeBinaries } from './binaries.js';
import type { ControlPlane } from './control-plane.js';
import type { Run } from './peerscope-cli.js';

export const GROUP = 'storagemigration.k8s.io';
export const KIND_PATH = `/apis/${GROUP}/v1/storageversionmigrations`;
/** A CRD the tests create straight on a server, to see how soon each side lists it. */
export const GADGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.fresh.example.io' },
  spec: {
    group: 'fresh.example.io',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};
export const CHART = join(repoRoot, 'test/kube/fixtures/every-client-chart');
export const migration = (name: string, extra = '') => `apiVersion: ${GROUP}/v1
kind: StorageVersionMigration
metadata:
  name: ${name}
spec:
  resource: {group: "", resource: secrets}
${extra}`;

const env = { ...process.env, HTTPS_PROXY: '', https_proxy: '', HTTP_PROXY: '', http_proxy: '' };

export function run(command: string, args: readonly string[], extraEnv: Record<string, string> = {}, timeoutMs = 90_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: repoRoot, timeout: timeoutMs, env: { ...env, ...extraEnv } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as NodeJS.ErrnoException).code === 'number' ? Number((err as NodeJS.ErrnoException).code) : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A kubeconfig whose cluster is the port (plain HTTP on loopback, no credential: the port adds none it has not got). */
export function portKubeconfig(dir: string, name: string, url: string): string {
  const file = join(dir, `${name}.kubeconfig`);
  writeFileSync(
    file,
    `apiVersion: v1
kind: Config
clusters: [{name: port, cluster: {server: "${url}"}}]
users: [{name: none, user: {}}]
contexts: [{name: port, context: {cluster: port, user: none}}]
current-context: port
`,
  );
  return file;
}

export async function until<T>(read: () => Promise<T | undefined>, what: string, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const client = (name: string) => kubeBinaries?.clients.get(name);
export function skipWithout(name: string): boolean {
  if (client(name)) return false;
  console.log(`skipping the ${name} test: no ${name} binary in the kube cache; build it with \`npm run kube:build\``);
  return true;
}

export const API_SERVICE = `/apis/apiregistration.k8s.io/v1/apiservices/v1.${GROUP}`;

/**
 * The group's API registration as the newer server makes it. Whether the older server, starting
 * beside it, has already deleted it depends on which started first: the tests set it as they need.
 */
export async function ensureRegistered(cp: ControlPlane): Promise<void> {
  if ((await cp.call('kube-new', API_SERVICE)).status === 404) {
    console.log(`APIService v1.${GROUP} was missing (the older server removed it at its start-up): registered again as the newer does`);
    const made = await cp.call('kube-new', '/apis/apiregistration.k8s.io/v1/apiservices', {
      method: 'POST',
      body: {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: `v1.${GROUP}`, labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } },
        spec: { group: GROUP, version: 'v1', groupPriorityMinimum: 1800, versionPriority: 15 },
      },
    });
    expect(made.status, made.text).toBe(201);
  }
  await until(async () => {
    const legacy = (await cp.call('kube-old', '/apis', { headers: { accept: 'application/json' } })).json() as {
      groups: { name: string }[];
    };
    return legacy.groups.some((g) => g.name === GROUP) ? true : undefined;
  }, `the older's legacy /apis to list ${GROUP}`);
}
