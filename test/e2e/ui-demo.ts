// The demo the UI test drives: a simulated mid-rollout control plane (one apiserver at v1.37-dev, two at
// v1.36-dev) with traffic, the core and the UI server in-process, the built renderer, and Chromium on
// it. Each part is kept on the object as it starts, so stopUiDemo closes whatever did start.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startUiServer, type UiServer } from '../../proxy-core/hosts/ui-server/server.js';
import { createCoreService, type CoreService } from '../../proxy-core/hosts/service/service.js';
import { createSimController, type SimController } from '../../proxy-core/hosts/service/sim-controller.js';
import { createCore, type Core } from '../../proxy-core/engine/core.js';
import { loadRelease } from '../../proxy-core/engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../../proxy-core/sim/index.js';
import { startTraffic, type TrafficHandle } from '../../proxy-core/sim/traffic/index.js';
import { launchChromium } from '../chromium.js';
import { repoRoot } from '../fixtures.js';

export { CHROMIUM } from '../chromium.js';
/** Where the screenshots and the exported snapshot go. */
export const shots = join(repoRoot, 'test-results');

export interface UiDemo {
  sim?: SimCluster;
  core?: Core;
  simController?: SimController;
  traffic?: TrafficHandle;
  service?: CoreService;
  control?: UiServer;
  browser?: Browser;
  page?: Page;
  /** Console errors, CSP violations and page errors seen while the test ran. */
  problems: string[];
}

export async function startUiDemo(d: UiDemo): Promise<void> {
  buildRenderer(join(repoRoot, 'dist', 'renderer'));
  const v136 = loadRelease('v1.36-dev');
  const v137 = loadRelease('v1.37-dev');
  const sim = (d.sim = await startSimCluster({ releases: [v137, v136, v136] }));
  const core = (d.core = createCore({
    servers: sim.serverConfigs(),
    listen: { port: 0 },
    probeIntervalMs: 250,
    ownIdentity: 'sim-admin',
  }));
  const port = await core.start();
  const traffic = (d.traffic = startTraffic({ targets: [port.url], rps: 15, releases: [v136, v137], seed: 7 }));
  const simController = (d.simController = createSimController({
    servers: sim.servers,
    from: 'v1.36-dev',
    to: v137,
    traffic,
    trafficRps: 15,
    rollout: { drainSeconds: 0.5, downSeconds: 0.5 },
  }));
  const service = (d.service = createCoreService(core, { sim: simController }));
  const control = (d.control = await startUiServer({ service: service, rendererDir: join(repoRoot, 'dist', 'renderer') }));
  ({ browser: d.browser, page: d.page } = await openInChromium(control.url, d.problems));
}

/**
 * Builds the renderer into `outDir` (only the renderer, as scripts/build.mjs builds it: rebuilding
 * dist/cli.mjs here could race with other test files that run the CLI at the same time). A test file
 * that runs beside ui.test.ts builds into a folder of its own, so the two never write one bundle.
 */
export function buildRenderer(outDir: string): void {
  // NODE_ENV is 'test' under vitest, and vite would then bundle React's development build into
  // dist/renderer — the build `npm start` serves afterwards. Build what users get.
  execFileSync(
    process.execPath,
    [
      join(repoRoot, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      'renderer/vite.config.ts',
      '--outDir',
      outDir,
      '--emptyOutDir',
      '--logLevel',
      'warn',
    ],
    { cwd: repoRoot, stdio: 'pipe', env: { ...process.env, NODE_ENV: 'production' } },
  );
  mkdirSync(shots, { recursive: true });
}

/** Chromium on `url`; console errors, CSP violations and page errors go to `problems`. */
export async function openInChromium(url: string, problems: string[]): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.goto(url);
  return { browser, page };
}

export async function stopUiDemo(d: UiDemo): Promise<void> {
  await d.browser?.close();
  await d.control?.close();
  d.service?.close();
  await d.traffic?.stop();
  await d.simController?.close();
  await d.core?.close(0);
  await d.sim?.close();
}

/** A screenshot of what the page shows, light and dark. */
export async function shootScreens(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: join(shots, `ui-${name}.png`) });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(shots, `ui-${name}-dark.png`) });
  await page.emulateMedia({ colorScheme: 'light' });
}
