// The missing API registration in real Chromium: a core over two apiserver stand-ins (real HTTP), one
// of which serves a group whose APIService is removed (as an older kube-apiserver does at start-up).
// The GVR matrix and the Server health screen say so in plain words, naming the group, the server that
// serves it and the one that likely removed it; the note leaves once the registration is back.
// Screenshots under test-results/ui-missing-registration*.png.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegistrationStandIns, type RegistrationStandIns } from '../../proxy-core/test/registration-standins.js';
import { startUiServer, type UiServer } from '../../proxy-core/hosts/ui-server/server.js';
import { createCoreService } from '../../proxy-core/hosts/service/service.js';
import { createCore, type Core } from '../../proxy-core/engine/core.js';
import { buildRenderer, CHROMIUM, openInChromium, shootScreens } from './ui-demo.js';

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`test/e2e/ui-missing-registration.test.ts: skipped, ${CHROMIUM} is missing (apt-get install chromium)`);

describe.skipIf(!hasChromium)('a missing API registration in Chromium', () => {
  let rendererDir: string;
  let standIns: RegistrationStandIns;
  let core: Core;
  let control: UiServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    rendererDir = mkdtempSync(join(tmpdir(), 'ui-registration-renderer-'));
    buildRenderer(rendererDir);
    standIns = await startRegistrationStandIns([
      { name: 'kube-old', gitVersion: 'v1.36.3', groups: { 'apiregistration.k8s.io': ['v1'], 'apps.example.io': ['v1'] } },
      {
        name: 'kube-new',
        gitVersion: 'v1.37.2',
        groups: { 'apiregistration.k8s.io': ['v1'], 'apps.example.io': ['v1'], 'storagemigration.k8s.io': ['v1'] },
      },
    ]);
    core = createCore({ servers: standIns.servers, listen: { host: '127.0.0.1', port: 0 } });
    await core.start();
    for (const deadline = Date.now() + 30_000; core.servers.apiWatchOf()?.state('apiservices') !== 'watching';) {
      if (Date.now() > deadline) throw new Error('the APIService watch did not start within 30 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    standIns.deregister('storagemigration.k8s.io/v1');
    control = await startUiServer({ service: createCoreService(core), rendererDir });
    ({ browser, page } = await openInChromium(control.url, problems));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await control?.close();
    await core?.close(0);
    await standIns?.close();
    if (rendererDir) rmSync(rendererDir, { recursive: true, force: true });
  });

  it('the GVR matrix names the group, the server serving it and the one that likely removed it', async () => {
    await page.getByRole('tab', { name: 'GVR matrix' }).click();
    const note = page.getByRole('note', { name: 'Missing API registrations' });
    await note.waitFor({ timeout: 30_000 });
    // Each server's legacy /apis is re-read on its own: the sentence names both once both were.
    await expect
      .poll(() => note.textContent(), { timeout: 30_000 })
      .toContain(
        'storagemigration.k8s.io (v1) is served by kube-new, but legacy discovery straight to kube-old, kube-new does not list it: its APIService is gone',
      );
    const text = (await note.textContent()) ?? '';
    expect(text).toContain('API registration missing');
    expect(text).toContain('probably deleted by kube-old at its start-up');
    expect(text).toContain('the port still lists it');
    // The aggregator's own group, which no APIService names, is not called missing (issue 44).
    expect(text).not.toContain('apiregistration.k8s.io');
    await shootScreens(page, 'missing-registration');
    expect(problems).toEqual([]);
  });

  it('Server health says it too; the note leaves once the registration is back', async () => {
    await page.getByRole('tab', { name: 'Server health' }).click();
    const note = page.getByRole('note', { name: 'Missing API registrations' });
    await note.waitFor({ timeout: 30_000 });
    expect(await note.textContent()).toContain('storagemigration.k8s.io (v1) is served by kube-new');
    await shootScreens(page, 'missing-registration-health');
    standIns.register('storagemigration.k8s.io/v1');
    await page.getByRole('tab', { name: 'GVR matrix' }).click();
    await note.waitFor({ state: 'detached', timeout: 30_000 });
    expect(problems).toEqual([]);
  });
});
