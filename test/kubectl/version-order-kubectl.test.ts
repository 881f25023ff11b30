// Issue 45 on the simulated servers: the real kubectl through the port, pinned to the older server
// (v1.36-dev beside v1.37-dev), asks for every resource served in more than one version in the same
// group-version as straight to the newest server — the merged discovery lists each group's versions
// in version priority (rule P9). With --faithful the port keeps D2's order, as kube-apiserver does.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreService } from '../../proxy-core/hosts/service/service.js';
import { loadRelease } from '../../proxy-core/engine/releases/index.js';
import { startBed, type Bed } from '../../proxy-core/test/harness.js';
import { hasKubectl, kubectlAt, KUBECTL } from './kubectl.js';
import { execFile } from 'node:child_process';

const OLD = 'v1.36-dev';
const NEW = 'v1.37-dev';
// D2 visits the servers by name: the older first, as the issue saw it.
const SERVERS = { 'a-old': loadRelease(OLD), 'b-new': loadRelease(NEW) };
const DISCOVERY_ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

interface Doc {
  items: { metadata?: { name?: string }; versions: { version: string; resources?: { resource: string; verbs: string[] }[] }[] }[];
}

/** "resource.group" → the versions the document lists it in, in its order; listable resources only. */
function multiVersion(doc: Doc): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const g of doc.items)
    for (const v of g.versions)
      for (const r of v.resources ?? []) {
        if (!r.verbs.includes('list') || r.resource.includes('/')) continue;
        const key = `${r.resource}.${g.metadata?.name}`;
        out.set(key, [...(out.get(key) ?? []), v.version]);
      }
  return new Map([...out].filter(([, vs]) => vs.length > 1));
}

describe.skipIf(!hasKubectl)('kubectl picks the newest version through the port (P9), simulated v1.36-dev + v1.37-dev', () => {
  let bed: Bed;
  let faithful: Bed;
  let dir: string;
  const asked: { server: string; url: string }[] = [];

  beforeAll(async () => {
    [bed, faithful] = await Promise.all([
      startBed(SERVERS, { policy: { kind: 'pin', server: 'a-old' } }, { http: false }),
      startBed(SERVERS, { policy: { kind: 'pin', server: 'a-old' }, faithful: true }, { http: false }),
    ]);
    for (const b of [bed, faithful]) b.sim.onRequest((server, req) => asked.push({ server, url: req.url }));
    dir = mkdtempSync(join(tmpdir(), 'kubectl-version-order-'));
    writeFileSync(join(dir, 'sim-kubeconfig'), bed.sim.kubeconfig());
  });
  afterAll(async () => {
    await bed?.close();
    await faithful?.close();
  });

  const straightToNew = (args: readonly string[]) =>
    new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(
        KUBECTL,
        ['--kubeconfig', join(dir, 'sim-kubeconfig'), '--context', 'b-new', '--cache-dir', join(dir, 'cache-new'), ...args],
        { timeout: 20_000, env: { ...process.env, HOME: dir } },
        (err, _stdout, stderr) => resolve({ code: err ? 1 : 0, stderr }),
      ),
    );

  /** The group-version of the resource request a kubectl run made (seen by the simulated servers). */
  async function versionAsked(run: () => Promise<unknown>, resource: string, group: string): Promise<string | undefined> {
    asked.length = 0;
    await run();
    const pattern = new RegExp(`^/apis/${group.replace(/\./g, '\\.')}/([^/]+)/(?:namespaces/[^/]+/)?${resource}(?:[/?]|$)`);
    return asked.map((a) => pattern.exec(a.url)?.[1]).find((v) => v !== undefined);
  }

  it('every resource served in more than one version: the same group-version as straight to the newest server', async () => {
    const merged = (await bed.get('/apis', { accept: DISCOVERY_ACCEPT })).json<Doc>();
    const resources = multiVersion(merged);
    console.log(`resources served in more than one version: ${[...resources].map(([k, vs]) => `${k} [${vs.join(', ')}]`).join('; ')}`);
    expect(resources.has('workloads.scheduling.k8s.io')).toBe(true);
    // Each simulated server's legacy /apis is its own groups: no registration is called missing (issue 44).
    expect(bed.core.servers.missingRegistrations()).toEqual([]);
    const throughPort = kubectlAt(bed.url);
    const rows: string[] = [];
    for (const [name, versions] of resources) {
      const [resource, ...rest] = name.split('.');
      const group = rest.join('.');
      const args = ['get', name, '-A', '-o', 'name'];
      const port = await versionAsked(() => throughPort(args), resource!, group);
      const straight = await versionAsked(() => straightToNew(args), resource!, group);
      // (One kubectl at a time: the versions are told apart by what the servers received.)
      rows.push(`${name}: through the port ${port}, straight to ${NEW} ${straight} (merged lists ${versions.join(', ')})`);
      expect(port, name).toBeDefined();
      expect(port, name).toBe(straight);
    }
    console.log(rows.join('\n'));
  }, 180_000);

  it("the merged /apis lists scheduling.k8s.io by priority; --faithful keeps D2's order (kubectl then asks the older's v1alpha1)", async () => {
    const order = (doc: Doc) => doc.items.find((g) => g.metadata?.name === 'scheduling.k8s.io')?.versions.map((v) => v.version);
    const byDefault = order((await bed.get('/apis', { accept: DISCOVERY_ACCEPT })).json<Doc>());
    const asServed = order((await faithful.get('/apis', { accept: DISCOVERY_ACCEPT })).json<Doc>());
    console.log(`scheduling.k8s.io through the port: ${byDefault?.join(', ')}; with --faithful: ${asServed?.join(', ')}`);
    expect(byDefault).toEqual(['v1', 'v1beta1', 'v1alpha3', 'v1alpha1']);
    expect(asServed).toEqual(['v1', 'v1alpha1', 'v1beta1', 'v1alpha3']);
    // What the issue saw: D2's order puts kubectl on the version the upgrade removes.
    const faithfulKubectl = kubectlAt(faithful.url);
    const viaFaithful = await versionAsked(
      () => faithfulKubectl(['get', 'workloads.scheduling.k8s.io', '-A']),
      'workloads',
      'scheduling.k8s.io',
    );
    console.log(`kubectl get workloads through the --faithful port asks scheduling.k8s.io/${viaFaithful}`);
    expect(viaFaithful).toBe('v1alpha1');
    // The Discovery screen's data: the order served, and where it differs from each server's own.
    const views = await createCoreService(bed.core).getDiscoveryViews();
    const faithfulViews = await createCoreService(faithful.core).getDiscoveryViews();
    const differs = (v: typeof views, server: string) =>
      v.servers.find((s) => s.name === server)?.versionOrder?.find((d) => d.group === 'scheduling.k8s.io');
    expect([views.merged.versionOrder, faithfulViews.merged.versionOrder]).toEqual(['priority', 'as-served']);
    expect(differs(views, 'a-old')).toEqual({ group: 'scheduling.k8s.io', own: ['v1', 'v1alpha1'], merged: byDefault });
    expect(differs(views, 'b-new')).toBeUndefined();
    expect(differs(faithfulViews, 'b-new')).toEqual({ group: 'scheduling.k8s.io', own: ['v1', 'v1beta1', 'v1alpha3'], merged: asServed });
    // The legacy /apis too: versions by priority, the first preferred.
    const legacy = (await bed.get('/apis', { accept: 'application/json' })).json<{
      groups: { name: string; versions: { version: string }[]; preferredVersion: { version: string } }[];
    }>();
    const scheduling = legacy.groups.find((g) => g.name === 'scheduling.k8s.io');
    expect(scheduling?.versions.map((v) => v.version)).toEqual(['v1', 'v1beta1', 'v1alpha3', 'v1alpha1']);
    expect(scheduling?.preferredVersion.version).toBe('v1');
  });
});
