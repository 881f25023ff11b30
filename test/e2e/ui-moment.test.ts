// Every screen at a moment, in real Chromium, on the demo as `peerscope demo` runs it (it records the
// session): the rollout upgrades a server, the scrubber of the top bar is dragged back to before the
// rollout began, and the GVR matrix and Server health show the cluster as it was then — every server
// at v1.36, no skew — while live shows the upgraded one; "Back to live" returns. Screenshots under
// test-results/ui-moment-*.png.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUiServer, type UiServer } from '../../proxy-core/hosts/ui-server/server.js';
import { startDemoSession, type DemoSession } from '../../proxy-core/hosts/session/demo.js';
import { buildRenderer, CHROMIUM, openInChromium, shootScreens } from './ui-demo.js';

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`test/e2e/ui-moment.test.ts: skipped, ${CHROMIUM} is missing (apt-get install chromium)`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!hasChromium)('a recorded moment in Chromium, on the demo', () => {
  let rendererDir: string;
  let session: DemoSession | undefined;
  let control: UiServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];
  /** Epoch ms just before the rollout was started. */
  let rolloutStartedAt = 0;
  let preRollout = { rows: 0, skewed: -1 };

  beforeAll(async () => {
    rendererDir = mkdtempSync(join(tmpdir(), 'ui-moment-renderer-'));
    buildRenderer(rendererDir);
    session = await startDemoSession({ listen: { host: '127.0.0.1', port: 0 }, trafficRps: 10, stepSeconds: 1, record: {} });
    control = await startUiServer({ service: session.service, rendererDir });
    ({ browser, page } = await openInChromium(control.url, problems));
    // Some seconds of the cluster before the rollout, all servers at v1.36-dev, to drag back to.
    for (const until = Date.now() + 30_000; session.core.serverStatuses().some((s) => s.discovery.state !== 'ok');) {
      if (Date.now() > until) throw new Error('the demo servers did not all serve discovery within 30 s');
      await sleep(200);
    }
    await sleep(8_000);
    // What the port's route table held before the rollout: what the matrix must show when dragged back.
    preRollout = { rows: session.core.routes.table.rows().length, skewed: session.core.routes.table.skewed().length };
    rolloutStartedAt = Date.now();
    const rollout = session.rollout;
    rollout.startRollout();
    // One server upgraded and back, then paused: the cluster stays mixed (skewed) while the test looks.
    for (const until = Date.now() + 90_000; ;) {
      const upgraded = rollout.status().rollout.upgraded;
      const back = session.core.serverStatuses().find((s) => upgraded.includes(s.name));
      if (back?.health === 'ready' && back.gitVersion?.startsWith('v1.37') && session.core.routes.table.skewed().length > 0) break;
      if (Date.now() > until) throw new Error('the demo rollout upgraded no server within 90 s');
      await sleep(200);
    }
    rollout.pauseRollout();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await control?.close();
    const file = session?.recordingFile;
    await session?.close();
    if (file) rmSync(dirname(file), { recursive: true, force: true });
    if (rendererDir) rmSync(rendererDir, { recursive: true, force: true });
  });

  const releases = () =>
    page
      .getByRole('list', { name: 'Apiservers' })
      .locator('.release')
      .evaluateAll((els) => els.map((e) => e.getAttribute('title')));

  it('live shows the upgraded server and the skew; the strip marks its release change', async () => {
    await page.getByRole('tab', { name: 'GVR matrix' }).click();
    await expect.poll(releases, { timeout: 15_000 }).toEqual(expect.arrayContaining([expect.stringMatching(/^v1\.37/)]));
    const skewed = session!.core.routes.table.skewed().length;
    await page.getByText(`${skewed} skewed`).waitFor();
    // The release change of the upgraded server, drawn on the strip once the timeline is read again.
    await expect.poll(() => page.getByTestId('release-mark').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Live' }).getAttribute('aria-pressed')).toBe('true');
    await shootScreens(page, 'moment-live');
  });

  it('dragging the scrubber to before the rollout shows every server at v1.36 and no skew', async () => {
    const slider = page.getByLabel('Moment of the recording');
    const min = Number(await slider.getAttribute('min'));
    const max = Number(await slider.getAttribute('max'));
    // Halfway through the quiet seconds before the rollout began.
    const target = rolloutStartedAt - 4_000;
    expect(target).toBeGreaterThan(min);
    const box = (await slider.boundingBox())!;
    // Chromium's thumb is 16 px wide: its centre runs from 8 px in to 8 px before the end.
    const xOf = (at: number) => box.x + 8 + ((at - min) / (max - min)) * (box.width - 16);
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width - 8, y);
    await page.mouse.down();
    await page.mouse.move(xOf(target), y, { steps: 12 });
    await page.mouse.up();

    const banner = page.getByRole('region', { name: 'Recorded moment' });
    await banner.waitFor();
    const at = Number(await slider.inputValue());
    console.log(`moment: ${new Date(at).toISOString()}, rollout started ${new Date(rolloutStartedAt).toISOString()}`);
    expect(at).toBeLessThan(rolloutStartedAt);
    expect(await banner.textContent()).toMatch(/At \d\d:\d\d:\d\d — recorded/);
    // The top bar's servers as they were then: all three at v1.36.
    await expect
      .poll(releases)
      .toEqual([expect.stringMatching(/^v1\.36/), expect.stringMatching(/^v1\.36/), expect.stringMatching(/^v1\.36/)]);
    // The matrix: nothing skewed, every GVR on every server — as the port's table was before the rollout.
    expect(preRollout.skewed).toBe(0);
    await page.getByText('0 skewed').waitFor();
    await expect.poll(() => page.locator('.summary').textContent()).toContain(`Showing ${preRollout.rows} of ${preRollout.rows} GVRs`);
    const state = await session!.service.getStateAt({ at });
    expect(state.routeTable.skewedCount).toBe(0);
    expect(state.routeTable.rows.length).toBeGreaterThan(0);
    await expect.poll(() => page.locator('.summary').textContent()).toContain(`of ${state.routeTable.rows.length} GVRs`);
    await shootScreens(page, 'moment-matrix');

    await page.getByRole('tab', { name: 'Server health' }).click();
    await page.getByRole('heading', { name: /^Server health at \d\d:\d\d:\d\d$/ }).waitFor();
    await shootScreens(page, 'moment-health');

    // Live routing has no data at a moment, and says so.
    await page.getByRole('tab', { name: 'Live routing' }).click();
    await page.getByText(/Live routing has no data at a recorded moment/).waitFor();
  });

  it('"Back to live" shows the upgraded server again', async () => {
    await page.getByRole('tab', { name: 'GVR matrix' }).click();
    await page.getByRole('button', { name: 'Back to live' }).click();
    await page.getByRole('region', { name: 'Recorded moment' }).waitFor({ state: 'detached' });
    await expect.poll(releases).toEqual(expect.arrayContaining([expect.stringMatching(/^v1\.37/)]));
    await page.getByText(`${session!.core.routes.table.skewed().length} skewed`).waitFor();
    expect(problems).toEqual([]);
  });
});
