// The Recordings screen in real Chromium, in browser mode as `peerscope demo --ui` runs it: every
// session records into the recordings folder; a past recording (a two-server demo whose rollout ran
// to the end) opens read-only and the screens show its servers, the top bar naming it in place of "live"
// and offering no change; "Back to live" returns to the running three-server demo; a file picked in <input type=file> is uploaded — refused when it is not a
// recording, opened when it is. Screenshots under test-results/ui-recordings-*.png.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecordingsApp, type RecordingsApp } from './recordings-app.js';
import { CHROMIUM, shootScreens } from './ui-demo.js';

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`test/e2e/ui-recordings.test.ts: skipped, ${CHROMIUM} is missing (apt-get install chromium)`);

describe.skipIf(!hasChromium)('the Recordings screen in Chromium, in browser mode', () => {
  let app: RecordingsApp;
  let page: Page;
  let root: string;
  let folder: string;
  let pastName: string;
  let problems: string[];

  beforeAll(async () => {
    app = await startRecordingsApp('ui-recordings');
    ({ page, root, folder, pastName, problems } = app);
  }, 120_000);

  afterAll(() => app?.close());

  const releases = () =>
    page
      .getByRole('list', { name: 'Apiservers' })
      .locator('.release')
      .evaluateAll((els) => els.map((e) => e.getAttribute('title')));
  const banner = () => page.getByRole('region', { name: 'Recording shown' });
  const topBar = () => page.locator('header.topbar');
  /** The top bar's badges saying what is shown ("live", "recorded window", "recording NAME"). */
  const badges = () => topBar().locator('.brand [role=status]').allTextContents();
  const policy = () => page.getByLabel('Handling policy');
  /** The live demo's bar: the live badge, its port, the policy to change and the snapshot to take. */
  const topBarIsLive = async () => {
    await expect.poll(badges, { timeout: 10_000 }).toEqual(['live']);
    await expect.poll(() => policy().isEnabled()).toBe(true);
    expect(await policy().getAttribute('title')).toBeNull();
    await page.getByRole('button', { name: 'Export snapshot' }).waitFor();
    await page.getByRole('group', { name: 'Simulated rollout' }).waitFor();
    expect(await topBar().locator('.port').textContent()).toMatch(/^127\.0\.0\.1:\d+$/);
  };

  it('lists the folder: the past recording with its servers and releases, and the one being written', async () => {
    await page.getByRole('tab', { name: 'Recordings' }).click();
    const rows = page.getByTestId('recording-row');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
    const past = rows.filter({ hasText: pastName });
    await expect.poll(() => past.textContent()).toMatch(/sim-1, sim-2/);
    expect(await past.textContent()).toMatch(/v1\.36\.\S+ → v1\.37\./);
    expect(await rows.filter({ hasText: /^demo-/ }).textContent()).toContain('recording now');
    await page.getByText(folder).waitFor();
    await page.getByText(/used of 5\.0 GiB · kept 14 days/).waitFor();
    await expect.poll(releases).toHaveLength(3);
    await shootScreens(page, 'recordings-list');
  });

  it("at a window of the live session's own recording, the top bar says so and offers no change", async () => {
    await topBarIsLive();
    await page.getByRole('button', { name: 'Whole' }).click();
    await expect.poll(badges).toEqual(['recorded window']);
    await expect.poll(() => policy().isDisabled()).toBe(true);
    expect(await policy().getAttribute('title')).toBe('The policy recorded then: back to live to change it');
    expect(await page.getByRole('button', { name: 'Export snapshot' }).count()).toBe(0);
    expect(await page.getByRole('group', { name: 'Simulated rollout' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Live', exact: true }).click();
    await topBarIsLive();
  });

  it('opens the past recording: every screen shows its two upgraded servers, read-only, until back to live', async () => {
    await page.getByRole('button', { name: `Open ${pastName}` }).click();
    await banner().waitFor();
    expect(await banner().textContent()).toContain(`Viewing recording ${pastName} — read-only.`);
    await expect.poll(releases, { timeout: 10_000 }).toEqual([expect.stringMatching(/^v1\.37/), expect.stringMatching(/^v1\.37/)]);
    // The top bar names the recording where it said "live", and offers nothing its read-only session would refuse.
    await expect.poll(badges).toEqual([`recording ${pastName}`]);
    await expect.poll(() => policy().isDisabled()).toBe(true);
    expect(await policy().getAttribute('title')).toMatch(
      new RegExp(`^The policy recorded in ${pastName.replace(/\./g, '\\.')}: a recording is read-only`),
    );
    expect(await page.getByRole('button', { name: 'Export snapshot' }).count()).toBe(0);
    expect(await page.getByRole('group', { name: 'Simulated rollout' }).count()).toBe(0);
    // No port listens for a recording: the live session's is not shown as its own. Its counts are the whole recording's.
    expect(await topBar().locator('.port').count()).toBe(0);
    await page.getByLabel('Requests through the port over the whole recording').waitFor();
    await shootScreens(page, 'recordings-open-topbar');
    // A window of it is still that recording's; leaving the window goes to its end, not to live.
    await page.getByRole('button', { name: 'Whole' }).click();
    const window = page.getByRole('region', { name: 'Recorded window' });
    await window.waitFor();
    await expect.poll(badges).toEqual([`recording ${pastName}`]);
    await expect.poll(() => policy().isDisabled()).toBe(true);
    await window.getByRole('button', { name: "Back to the recording's end" }).click();
    await window.waitFor({ state: 'detached' });
    expect(await badges()).toEqual([`recording ${pastName}`]);
    await banner().waitFor();
    await page.getByRole('tab', { name: 'GVR matrix' }).click();
    await page.getByText('0 skewed').waitFor();
    // No per-minute rates of the live cluster's audit logs on a recording that has none to show.
    expect(await page.locator('.cell-rate').count()).toBe(0);
    await shootScreens(page, 'recordings-open-matrix');
    await page.getByRole('tab', { name: 'Server health' }).click();
    await shootScreens(page, 'recordings-open-health');

    await banner().getByRole('button', { name: 'Back to live' }).click();
    await banner().waitFor({ state: 'detached' });
    await expect.poll(releases, { timeout: 10_000 }).toHaveLength(3);
    await topBarIsLive();
    await shootScreens(page, 'recordings-back-to-live-topbar');
  });

  it('refuses a picked file that is not a recording, naming it, and opens one that is', async () => {
    await page.getByRole('tab', { name: 'Recordings' }).click();
    const notes = join(root, 'rollout-notes.txt');
    writeFileSync(notes, 'cp-2 went down at 14:32\n');
    await page.getByTestId('recording-file').setInputFiles(notes);
    const refusal = page.getByRole('alert').filter({ hasText: 'rollout-notes.txt: not a Peerscope recording' });
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/^Could not open the file\./);
    await shootScreens(page, 'recordings-refused');

    const colleague = join(mkdtempSync(join(root, 'mail-')), 'from-alice.recording.sqlite');
    copyFileSync(join(folder, pastName), colleague);
    await page.getByTestId('recording-file').setInputFiles(colleague);
    await banner().waitFor();
    expect(await banner().textContent()).toContain('Viewing recording from-alice.recording.sqlite');
    await expect.poll(() => page.getByTestId('recording-row').count()).toBe(3);
    await expect.poll(releases).toHaveLength(2);
    await shootScreens(page, 'recordings-imported');
    await banner().getByRole('button', { name: 'Back to live' }).click();
    await banner().waitFor({ state: 'detached' });
    // The refused upload's 400, which Chromium logs as a failed resource; nothing else.
    expect(problems).toEqual([expect.stringMatching(/status of 400 \(Bad Request\)/)]);
  });

  it('sets the cap from the screen: kept in the folder, applied at once, what it removed shown with why', async () => {
    await page.getByLabel('Days to keep').fill('7');
    // 0.0002 GiB (210 KiB): less than the recording being written holds by now.
    await page.getByLabel('Size cap in GiB').fill('0.0002');
    await page.getByRole('button', { name: 'Save cap' }).click();
    await page.getByText(/used of 210 KiB · kept 7 days/).waitFor();
    expect(JSON.parse(readFileSync(join(folder, 'retention.json'), 'utf8'))).toEqual({ maxAgeDays: 7, maxBytes: 214748 });
    // The folder held more than the cap: the two past recordings went, oldest first; the one being written stays.
    await page.getByText('Removed by the cap (2)').click();
    const reasons = page.locator('.removed li');
    await expect
      .poll(() => reasons.allTextContents())
      .toEqual([
        expect.stringMatching(
          /^from-alice\.recording\.sqlite \(\d+ KiB\) at .*: the folder held .* over the 210 KiB cap \(oldest removed first\)$/,
        ),
        expect.stringMatching(
          new RegExp(`^${pastName.replace(/\./g, '\\.')} \\(\\d+ KiB\\) at .*: the folder held .* over the 210 KiB cap`),
        ),
      ]);
    await expect.poll(() => page.getByTestId('recording-row').count()).toBe(1);
    await shootScreens(page, 'recordings-cap');
  });
});
