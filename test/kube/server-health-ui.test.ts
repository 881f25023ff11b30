// Server health in real Chromium with real kube-apiservers behind Peerscope: each server's own Mixed
// Version Proxy verdict in plain words and the requests it rerouted itself (from its /metrics),
// beside what Peerscope rerouted. kube-a serves coordination.k8s.io/v1beta1 and kube-b does not,
// both with their own MVP on; kube-old runs the older release without --peer-ca-file (own MVP off).
// The screenshot is saved as test-results/kube-server-health.png. Issue 44: on these fresh servers no
// API registration is called missing (the aggregator's own group, which no APIService names,
// included); an APIService deleted by hand is, within one refresh, and no longer once it is back.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serversFromKubeconfig } from '../../proxy-core/engine/cluster/from-kubeconfig.js';
import { startUiHost, type UiHost } from '../../proxy-core/hosts/cli/ui.js';
import { createCore, type Core } from '../../proxy-core/engine/core.js';
import { repoRoot } from '../fixtures.js';
import { kubeBinaries, skipKube } from './binaries.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { waitFor } from './processes.js';
import { API_SERVICE, GROUP } from './every-client-harness.js';
import { peerscope } from './peerscope-cli.js';
import { CHROMIUM, launchChromium } from '../chromium.js';

const GV = 'coordination.k8s.io/v1beta1';
const noChromium = !existsSync(CHROMIUM);
if (noChromium && !skipKube())
  console.log(`test/kube/server-health-ui.test.ts: skipped, ${CHROMIUM} is missing (apt-get install chromium)`);

describe.skipIf(skipKube() || noChromium)("Server health in Chromium shows each real server's own MVP and what it rerouted", () => {
  let cp: ControlPlane;
  let core: Core;
  let ui: UiHost;
  let browser: Browser;
  let names: Map<string, string>;

  beforeAll(async () => {
    execFileSync(
      process.execPath,
      [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'renderer/vite.config.ts', '--logLevel', 'warn'],
      { cwd: repoRoot, stdio: 'pipe', env: { ...process.env, NODE_ENV: 'production' } },
    );
    const newer = kubeBinaries?.newer ?? '';
    cp = await startControlPlane({
      servers: [
        { host: 'kube-a', release: newer, runtimeConfig: `${GV}=true` },
        { host: 'kube-b', release: newer },
        { host: 'kube-old', release: kubeBinaries?.older ?? '', mvp: 'no-peer-ca' },
      ],
    });
    names = await cp.leaseNames();
    const found = await serversFromKubeconfig({ kubeconfig: cp.kubeconfig('kube-b'), env: {} });
    core = createCore({
      servers: found.servers,
      listen: { port: 0 },
      probeIntervalMs: 500,
      ownMetricsIntervalMs: 1_000,
      policy: { kind: 'pin', server: names.get('kube-b') as string },
    });
    const port = await core.start();
    ui = await startUiHost({ core });
    // kube-b's own peer proxy reroutes these to kube-a once its peer sync ran ...
    await waitFor(
      "kube-b's own MVP reroutes LeaseCandidates",
      async () => ((await cp.call('kube-b', `/apis/${GV}/namespaces/default/leasecandidates`)).status === 200 ? true : undefined),
      60_000,
    );
    for (let i = 0; i < 4; i++) await cp.call('kube-b', `/apis/${GV}/namespaces/default/leasecandidates`);
    // ... and Peerscope, pinned to kube-b, reroutes these itself.
    for (let i = 0; i < 3; i++) await (await request(`${port.url}/apis/${GV}/namespaces/default/leasecandidates`)).body.text();
    browser = await launchChromium();
  }, 300_000);
  /** The APIService as kube-apiserver makes it at start-up. */
  async function recreate(): Promise<void> {
    const made = await cp.call('kube-a', '/apis/apiregistration.k8s.io/v1/apiservices', {
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
  afterAll(async () => {
    await browser?.close();
    await ui?.close();
    await core?.close(0);
    await cp?.close();
  });

  it("says in plain words whose own MVP is on or off, and shows the requests each rerouted itself beside Peerscope's", async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1100 } });
    await page.goto(ui.url);
    await page.getByRole('tab', { name: 'Server health' }).click();
    const b = page.getByRole('article', { name: 'apiserver kube-b' });
    const old = page.getByRole('article', { name: 'apiserver kube-old' });
    await expect.poll(() => b.textContent(), { timeout: 30_000 }).toContain("kube-b's own Mixed Version Proxy is on");
    await expect
      .poll(() => b.getByRole('table', { name: 'requests it rerouted, by GVR and code' }).textContent(), { timeout: 30_000 })
      .toContain('coordination.k8s.io/v1beta1/leasecandidates');
    await expect.poll(() => b.textContent()).toContain('Peerscope rerouted3 away from it, 0 to it');
    expect(await old.textContent()).toContain("kube-old's own Mixed Version Proxy is off: no --peer-ca-file");
    expect(await old.textContent()).toContain('not exposed (no peer proxy)');
    // Issue 44: nothing said missing on healthy servers — the screen, the core and `servers`. (An
    // older server started after a newer may delete the newer group's APIService at its start-up:
    // a true finding, told and put back first.)
    if ((await cp.call('kube-a', API_SERVICE)).status === 404) {
      const told = core.servers.missingRegistrations().map((m) => m.group);
      console.log(`APIService v1.${GROUP} was deleted at a server's start-up; the core named: ${told.join(', ')}`);
      await recreate();
      await waitFor('the finding to clear', async () => (core.servers.missingRegistrations().length === 0 ? true : undefined), 35_000);
      await page.reload();
      await page.getByRole('tab', { name: 'Server health' }).click();
    }
    expect(core.servers.missingRegistrations()).toEqual([]);
    expect(await page.getByRole('note', { name: 'Missing API registrations' }).count()).toBe(0);
    const listed = await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-b'), '--output', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { missingRegistrations: unknown[] }).missingRegistrations).toEqual([]);
    mkdirSync(join(repoRoot, 'test-results'), { recursive: true });
    const shot = join(repoRoot, 'test-results', 'kube-server-health.png');
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${shot}`);
  });

  it('an APIService deleted by hand: named within one refresh with what legacy discovery lacks; gone once it is recreated', async () => {
    const removed = await cp.call('kube-a', API_SERVICE, { method: 'DELETE' });
    expect(removed.status, removed.text).toBe(200);
    const deletedAt = Date.now();
    // Within one refresh: the APIService watch re-reads at once; the periodic re-read is every 30 s.
    const found = await waitFor(
      `the core to name ${GROUP}`,
      // Each server's legacy /apis is re-read on its own: until every one has been.
      async () => core.servers.missingRegistrations().find((m) => m.group === GROUP && m.missingFrom?.length === names.size),
      35_000,
    );
    console.log(`named ${Date.now() - deletedAt} ms after the DELETE: ${found.message}`);
    expect(found.versions).toContain('v1');
    expect(found.missingFrom?.sort()).toEqual([...names.values()].sort());
    expect(core.servers.missingRegistrations().map((m) => m.group)).toEqual([GROUP]);
    // Legacy /apis straight to each server lacks it, as the finding says.
    for (const host of ['kube-a', 'kube-b', 'kube-old']) {
      const legacy = (await cp.call(host, '/apis', { headers: { accept: 'application/json' } })).json() as { groups: { name: string }[] };
      expect(
        legacy.groups.map((g) => g.name),
        host,
      ).not.toContain(GROUP);
    }
    const page = await browser.newPage({ viewport: { width: 1440, height: 1100 } });
    await page.goto(ui.url);
    await page.getByRole('tab', { name: 'Server health' }).click();
    const note = page.getByRole('note', { name: 'Missing API registrations' });
    await note.waitFor({ timeout: 30_000 });
    const text = (await note.textContent()) ?? '';
    console.log(`Server health: ${text}`);
    expect(text).toContain(`${GROUP} (v1) is served by`);
    expect(text).toContain('does not list it: its APIService is gone');
    await page.screenshot({ path: join(repoRoot, 'test-results', 'kube-missing-registration.png'), fullPage: true });
    // Recreated: the finding and the note leave.
    await recreate();
    const recreatedAt = Date.now();
    await waitFor('the finding to clear', async () => (core.servers.missingRegistrations().length === 0 ? true : undefined), 35_000);
    console.log(`cleared ${Date.now() - recreatedAt} ms after the APIService was recreated`);
    await note.waitFor({ state: 'detached', timeout: 30_000 });
  });
});
