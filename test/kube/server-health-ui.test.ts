// Server health in real Chromium with real kube-apiservers behind Peerscope: each server's own Mixed
// Version Proxy verdict in plain words and the requests it rerouted itself (from its /metrics),
// beside what Peerscope rerouted. kube-a serves coordination.k8s.io/v1beta1 and kube-b does not,
// both with their own MVP on; kube-old runs the older release without --peer-ca-file (own MVP off).
// The screenshot is saved as test-results/kube-server-health.png.
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
    mkdirSync(join(repoRoot, 'test-results'), { recursive: true });
    const shot = join(repoRoot, 'test-results', 'kube-server-health.png');
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${shot}`);
  });
});
