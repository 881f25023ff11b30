// The done-when, in real Chromium on the demo as `npm start` runs it (it records the session):
// a new user starts the rollout with the top bar's sim controls, a server is upgraded, they drag the
// scrubber back to before it and every screen shows that moment or says plainly it has none; then a
// window dragged across the strip before the upgrade, the last 15 minutes and the whole rollout show
// Upgrade impact and False 404s by client over the window, read from the recording; Live routing shows
// the window's recorded requests and replays it at 60× inside it. Screenshots:
// test-results/demo-moment-before-upgrade-<screen>.png and demo-window-*.png.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSession, type DemoSession } from '../../proxy-core/hosts/session/demo.js';
import { startUiServer, type UiServer } from '../../proxy-core/hosts/ui-server/server.js';
import { sampleReplay, timeOf } from './replay-sampler.js';
import { buildRenderer, CHROMIUM, openInChromium, shots } from './ui-demo.js';

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`test/e2e/ui-demo-window.test.ts: skipped, ${CHROMIUM} is missing (apt-get install chromium)`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const SCREENS = ['GVR matrix', 'Server health', 'Live routing', 'Discovery', 'Upgrade impact', 'Snapshots'] as const;
const slug = (screen: string) => screen.toLowerCase().replace(/ /g, '-');

describe.skipIf(!hasChromium)('every screen at a moment or window of the demo, in Chromium', () => {
  let rendererDir: string;
  let session: DemoSession | undefined;
  let control: UiServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];
  /** Epoch ms just before the first server went down for its upgrade. */
  let upgradeBegan = 0;

  const shoot = (name: string) => page.screenshot({ path: join(shots, `demo-${name}.png`) });
  const releases = () =>
    page
      .getByRole('list', { name: 'Apiservers' })
      .locator('.release')
      .evaluateAll((els) => els.map((e) => e.getAttribute('title')));
  const band = async () => {
    const el = page.getByTestId('window-band');
    return { from: Number(await el.getAttribute('data-from')), to: Number(await el.getAttribute('data-to')) };
  };

  /** The window's false 404s, read: a table of them or the line saying there were none. */
  const windowFalse404s = () =>
    page
      .locator('.false-404s')
      .getByRole('table')
      .or(page.getByText(/None recorded in the window/))
      .waitFor({ timeout: 10_000 });

  /** In Live routing: the Replay bar's window and the line saying what the screen shows before Play. */
  const routingPreview = async (window: { from: number; to: number }) => {
    const replay = page.getByRole('group', { name: 'Replay', exact: true });
    await replay.waitFor();
    expect([Number(await replay.getAttribute('data-from')), Number(await replay.getAttribute('data-to'))]).toEqual([
      window.from,
      window.to,
    ]);
    await expect
      .poll(() => page.locator('.replay-banner').textContent())
      .toMatch(/^Play to replay \d\d:\d\d:\d\d–\d\d:\d\d:\d\d of the recording\. (Below|It holds)/);
    expect(await page.getByText(/No request has gone through the local port yet/).count()).toBe(0);
    return replay;
  };

  beforeAll(async () => {
    rendererDir = mkdtempSync(join(tmpdir(), 'ui-demo-window-renderer-'));
    buildRenderer(rendererDir);
    session = await startDemoSession({ listen: { host: '127.0.0.1', port: 0 }, trafficRps: 10, stepSeconds: 1, record: {} });
    control = await startUiServer({ service: session.service, rendererDir });
    ({ browser, page } = await openInChromium(control.url, problems));
    for (const until = Date.now() + 30_000; session.core.serverStatuses().some((s) => s.discovery.state !== 'ok');) {
      if (Date.now() > until) throw new Error('the demo servers did not all serve discovery within 30 s');
      await sleep(200);
    }
    // Some seconds of the cluster before the rollout, every server at v1.36-dev, to drag back to.
    await sleep(10_000);
    upgradeBegan = Date.now();
    // As a new user would: the rollout's own button in the top bar.
    await page.getByRole('button', { name: 'Start rollout' }).click();
    const rollout = session.rollout;
    for (const until = Date.now() + 90_000; ;) {
      const upgraded = rollout.status().rollout.upgraded;
      const back = session.core.serverStatuses().find((s) => upgraded.includes(s.name));
      if (back?.health === 'ready' && back.gitVersion?.startsWith('v1.37') && session.core.routes.table.skewed().length > 0) break;
      if (Date.now() > until) throw new Error('the demo rollout upgraded no server within 90 s');
      await sleep(200);
    }
    await page.getByRole('button', { name: 'Pause rollout' }).click();
    // The mixed cluster's false 404s reach the audit logs, the core and the recording.
    await sleep(6_000);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await control?.close();
    const file = session?.recordingFile;
    await session?.close();
    if (file) rmSync(dirname(file), { recursive: true, force: true });
    if (rendererDir) rmSync(rendererDir, { recursive: true, force: true });
  });

  it('dragged back to before the first upgrade, every screen shows that moment or says it has no data for it', async () => {
    await expect.poll(releases, { timeout: 15_000 }).toEqual(expect.arrayContaining([expect.stringMatching(/^v1\.37/)]));
    await expect.poll(() => page.getByTestId('release-mark').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    const slider = page.getByLabel('Moment of the recording');
    const min = Number(await slider.getAttribute('min'));
    const max = Number(await slider.getAttribute('max'));
    const target = upgradeBegan - 4_000;
    const box = (await slider.boundingBox())!;
    // Chromium's thumb is 16 px wide: its centre runs from 8 px in to 8 px before the end.
    const xOf = (at: number) => box.x + 8 + ((at - min) / (max - min)) * (box.width - 16);
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width - 8, y);
    await page.mouse.down();
    await page.mouse.move(xOf(target), y, { steps: 12 });
    await page.mouse.up();
    await page.getByRole('region', { name: 'Recorded moment' }).waitFor();
    const at = Number(await slider.inputValue());
    expect(at).toBeLessThan(upgradeBegan);
    const state = await session!.service.getStateAt({ at });
    expect(state.servers.map((s) => s.gitVersion)).toEqual([
      expect.stringMatching(/^v1\.36/),
      expect.stringMatching(/^v1\.36/),
      expect.stringMatching(/^v1\.36/),
    ]);

    for (const screen of SCREENS) {
      await page.getByRole('tab', { name: screen }).click();
      // Every screen: the banner says which moment, the top bar has each server as it was then.
      await expect
        .poll(releases)
        .toEqual([expect.stringMatching(/^v1\.36/), expect.stringMatching(/^v1\.36/), expect.stringMatching(/^v1\.36/)]);
      if (screen === 'GVR matrix') {
        await page.getByText('0 skewed').waitFor();
        await expect.poll(() => page.locator('.summary').textContent()).toContain(`of ${state.routeTable.rows.length} GVRs`);
      } else if (screen === 'Server health') {
        await page.getByRole('heading', { name: /^Server health at \d\d:\d\d:\d\d$/ }).waitFor();
      } else if (screen === 'Upgrade impact') {
        await page.getByText(/Upgrade impact reads a span of the recording, not a single moment/).waitFor();
      } else if (screen === 'Snapshots') {
        await page.getByRole('heading', { name: 'Snapshots' }).first().waitFor();
      } else {
        await page.getByText(new RegExp(`${screen} has no data at a recorded moment`)).waitFor();
      }
      await shoot(`moment-before-upgrade-${slug(screen)}`);
    }
  });

  it('a window dragged across the strip before the upgrade: Upgrade impact over it, the matrix at its end', async () => {
    const slider = page.getByLabel('Moment of the recording');
    const min = Number(await slider.getAttribute('min'));
    const max = Number(await slider.getAttribute('max'));
    const strip = (await page.getByLabel('Release changes and servers not ready over the recording').boundingBox())!;
    const xOf = (at: number) => strip.x + ((at - min) / (max - min)) * strip.width;
    const y = strip.y + strip.height / 2;
    await page.mouse.move(xOf(min) + 2, y);
    await page.mouse.down();
    await page.mouse.move(xOf(upgradeBegan - 3_000), y, { steps: 10 });
    await page.mouse.up();
    await page.getByRole('region', { name: 'Recorded window' }).waitFor();
    const window = await band();
    expect(window.to).toBeLessThan(upgradeBegan);
    await page.getByRole('tab', { name: 'Upgrade impact' }).click();
    await page.getByRole('heading', { name: 'Upgrade impact over the recorded window' }).waitFor();
    await page.getByRole('heading', { name: /False 404s by client/ }).waitFor();
    await expect
      .poll(releases)
      .toEqual([expect.stringMatching(/^v1\.36/), expect.stringMatching(/^v1\.36/), expect.stringMatching(/^v1\.36/)]);
    await shoot('window-before-upgrade-impact');
    // Live routing: the window's requests from the recording, every one before the upgrade began.
    await page.getByRole('tab', { name: 'Live routing' }).click();
    await routingPreview(window);
    await page.locator('.stream-scroll [role=row]').first().waitFor();
    const shownTimes = await page.locator('.stream-scroll [role=row] [role=cell]:first-child').allTextContents();
    for (const t of shownTimes.map((text) => timeOf(text, window.from))) {
      expect(t).toBeGreaterThanOrEqual(window.from);
      expect(t).toBeLessThan(window.to);
    }
    await shoot('window-before-upgrade-routing');
    await page.getByRole('tab', { name: 'GVR matrix' }).click();
    await page.getByText('0 skewed').waitFor();
    await shoot('window-before-upgrade-matrix');
  });

  it('the last 15 minutes: Upgrade impact and the false 404s of the rollout, as the recording has them', async () => {
    await page.getByRole('button', { name: '15 min' }).click();
    await expect.poll(() => page.getByRole('button', { name: '15 min' }).getAttribute('aria-pressed')).toBe('true');
    const window = await band();
    await page.getByRole('tab', { name: 'Upgrade impact' }).click();
    await page.getByRole('heading', { name: 'Upgrade impact over the recorded window' }).waitFor();
    // What the recording has for the window, as the screen shows it (read again while the audit logs catch up).
    const recorded = async () => (await session!.service.getFalse404sForWindow(window)).rows.reduce((n, r) => n + r.count, 0);
    const shown = async () => {
      const caption = page.locator('.false-404s caption');
      return (await caption.count()) ? Number(/^([\d,]+) false/.exec((await caption.textContent()) ?? '')?.[1]?.replace(/,/g, '')) : 0;
    };
    await expect.poll(async () => (await shown()) - (await recorded()), { timeout: 15_000 }).toBe(0);
    const total = await recorded();
    console.log(`last 15 min ${new Date(window.from).toISOString()}–${new Date(window.to).toISOString()}: ${total} false 404s`);
    if (total === 0) await page.getByText(/None recorded in the window/).waitFor();
    const report = await session!.service.getImpactForWindow(window);
    if (report.findings.length > 0) await page.locator('.impact-table').waitFor();
    await shoot('window-last-15min-impact');
    await page.locator('.false-404s').screenshot({ path: join(shots, 'demo-window-last-15min-false-404s.png') });
    // The other screens: the state at the window's end, the upgraded server among them.
    await page.getByRole('tab', { name: 'GVR matrix' }).click();
    await expect.poll(releases).toEqual(expect.arrayContaining([expect.stringMatching(/^v1\.37/)]));
    await shoot('window-last-15min-matrix');
  });

  it('the last 15 minutes in Live routing: the recording before Play, then replayed at 60× inside the window', async () => {
    await page.getByRole('button', { name: '15 min' }).click();
    await expect.poll(() => page.getByRole('button', { name: '15 min' }).getAttribute('aria-pressed')).toBe('true');
    const window = await band();
    await page.getByRole('tab', { name: 'Live routing' }).click();
    const replay = await routingPreview(window);
    await page.locator('.stream-scroll [role=row]').first().waitFor();
    await shoot('window-routing-before-play');
    await replay.getByRole('button', { name: '60×' }).click();
    // Halfway, paused: the screenshot; then on to the window's end.
    const first = await sampleReplay(page, 'Play', 0.5);
    await page.getByText(/^Replaying \d\d:\d\d(:\d\d)?–\d\d:\d\d(:\d\d)? at 60×/).waitFor();
    await shoot('window-replay-60x');
    const rest = await sampleReplay(page, 'Play', Infinity);
    // A frame drawn before the bar showed the replay has no clock yet.
    const samples = [...first, ...rest].filter((s) => !Number.isNaN(s.clock));
    console.log(
      `window replay 60×: ${samples.length} frames, clock ${new Date(samples[0]!.clock).toISOString()} → ${new Date(samples.at(-1)!.clock).toISOString()} in ${new Date(window.from).toISOString()}–${new Date(window.to).toISOString()}; ${rest.at(-1)!.status}`,
    );
    // The replayed clock stays inside the window, moves forward in many steps and ends at its end.
    const clocks = samples.map((s) => s.clock);
    for (const clock of clocks) {
      expect(clock).toBeGreaterThanOrEqual(window.from);
      expect(clock).toBeLessThanOrEqual(window.to);
    }
    expect(clocks).toEqual([...clocks].sort((a, b) => a - b));
    expect(new Set(clocks).size).toBeGreaterThan(5);
    expect(clocks.at(-1)).toBe(window.to);
    // Events appeared as it played, each inside the window and never past the clock.
    for (const s of samples)
      for (const t of s.rows.map((r) => timeOf(r, window.from))) {
        expect(t).toBeGreaterThanOrEqual(window.from);
        expect(t).toBeLessThanOrEqual(s.clock);
      }
    expect(samples.filter((s) => s.rows.length > 0).length).toBeGreaterThan(2);
    const played = Number(/Replayed ([\d,]+) events/.exec(rest.at(-1)!.status)?.[1]?.replace(/,/g, ''));
    expect(played).toBeGreaterThan(100);
    await shoot('window-replay-60x-ended');
    // Stop: the window's recording again, ready to play.
    await replay.getByRole('button', { name: 'Stop' }).click();
    await routingPreview(window);
  });

  it('the whole rollout, then back to live', async () => {
    await page.getByRole('button', { name: 'Whole' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Whole' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByRole('tab', { name: 'Upgrade impact' }).click();
    await page.getByRole('heading', { name: 'Upgrade impact over the recorded window' }).waitFor();
    await windowFalse404s();
    await shoot('window-whole-impact');
    // The recording's false 404s over the whole session are the ones the core counted live.
    const whole = await band();
    const recorded = async () =>
      (await session!.service.getFalse404sForWindow({ from: whole.from, to: Date.now() + 1 })).rows.reduce((n, r) => n + r.count, 0);
    const live = async () => (await session!.service.getOverview()).cluster?.totals['false-404'] ?? 0;
    await expect.poll(async () => (await recorded()) - (await live()), { timeout: 5_000 }).toBe(0);
    console.log(`false 404s: ${await live()} live, ${await recorded()} recorded`);
    await page.getByRole('button', { name: 'Live', exact: true }).click();
    await page.getByRole('region', { name: 'Recorded window' }).waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Upgrade impact', exact: true }).waitFor();
    expect(problems).toEqual([]);
  });
});
