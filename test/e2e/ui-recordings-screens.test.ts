// Every screen inside a recording opened from a file, in real Chromium (browser mode, as
// `peerscope demo --ui` runs it): a past two-server demo whose rollout ran to the end is opened from
// the Recordings screen and each screen is visited at the recording's end, over a window ("Whole") and
// at a moment (the scrubber), with each action it offers used. The key content is checked against the
// file read by a session of its own; no screen shows an error state and the page logs no error.
// Screenshots: test-results/ui-recordings-opened-<mode>-<screen>.png.
import { existsSync, readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routingSnapshotSchema, type RecordingTimeline } from '../../proxy-core/contract/index.js';
import { openRecordingSession, type RecordingSession } from '../../proxy-core/hosts/session/recording-session.js';
import { startRecordingsApp, type RecordingsApp } from './recordings-app.js';
import { CHROMIUM, shootScreens } from './ui-demo.js';

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`test/e2e/ui-recordings-screens.test.ts: skipped, ${CHROMIUM} is missing (apt-get install chromium)`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const clock = (at: number) => new Date(at).toTimeString().slice(0, 8);

describe.skipIf(!hasChromium)('every screen inside a recording opened from a file, in Chromium', () => {
  let app: RecordingsApp;
  let page: Page;
  let problems: string[];
  let pastName: string;
  /** The same file read by a session of the test's own: what the screens should show. */
  let file: RecordingSession | undefined;
  let span: RecordingTimeline;

  beforeAll(async () => {
    app = await startRecordingsApp('ui-recordings-screens');
    ({ page, problems, pastName } = app);
    file = openRecordingSession(app.pastFile);
    span = (await file.service.getRecordingTimeline())!;
    await page.getByRole('tab', { name: 'Recordings' }).click();
    await page.getByRole('button', { name: `Open ${pastName}` }).click();
    await page.getByRole('region', { name: 'Recording shown' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    file?.close();
    await app?.close();
  });

  const main = () => page.locator('main');
  const replay = () => page.getByRole('group', { name: 'Replay', exact: true });
  /** Opens a screen; once it has settled, nothing on the page is an error and the browser logged none. */
  async function visit(screen: string, mode: string, check: () => Promise<void>) {
    await page.getByRole('tab', { name: screen }).click();
    await check();
    await sleep(300);
    expect(await page.getByRole('alert').allTextContents(), `${screen} at ${mode}`).toEqual([]);
    expect(problems, `${screen} at ${mode}`).toEqual([]);
    await shootScreens(page, `recordings-opened-${mode}-${screen.toLowerCase().replace(/ /g, '-')}`);
  }
  /** The matrix's summary as the file's route table has it, and each server's column with its release. */
  async function matrixShows(at: number) {
    const state = await file!.service.getStateAt({ at });
    const rows = state.routeTable.rows.length;
    expect(rows).toBeGreaterThan(0);
    await expect
      .poll(() => page.locator('.summary').textContent())
      .toBe(`Showing ${rows} of ${rows} GVRs · ${state.routeTable.skewedCount} skewed`);
    for (const s of state.servers) await main().getByText(s.gitVersion!.slice(0, 5), { exact: false }).first().waitFor();
    return state;
  }
  /** Exports the moment shown on the Snapshots screen and reads the downloaded file. */
  async function exportMoment() {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export this moment' }).click()]);
    return routingSnapshotSchema.parse(JSON.parse(readFileSync((await download.path())!, 'utf8')));
  }

  it("at its end: each screen shows the recording's last state, or says plainly what the file does not hold", async () => {
    await visit('GVR matrix', 'end', async () => {
      const state = await matrixShows(span.endedAt);
      expect(state.servers.map((s) => [s.name, s.gitVersion?.slice(0, 5)])).toEqual([
        ['sim-1', 'v1.37'],
        ['sim-2', 'v1.37'],
      ]);
    });
    await visit('Server health', 'end', async () => {
      await expect.poll(() => main().locator('.badge.health-ready').count()).toBeGreaterThanOrEqual(2);
      expect(await main().innerText()).toMatch(/release\s+v1\.37/);
    });
    await visit('Live routing', 'end', async () => {
      await main().getByText(`${pastName} is shown at its end, where no request goes by`).waitFor();
      expect(await page.getByRole('button', { name: 'Pause stream' }).count()).toBe(0);
      // Play replays the recording here (its last minute by default), Stop returns to its end.
      await replay().getByRole('button', { name: 'Play' }).click();
      await expect.poll(() => page.getByRole('row').count(), { timeout: 15_000 }).toBeGreaterThan(1);
      await shootScreens(page, 'recordings-opened-end-replay');
      await replay().getByRole('button', { name: 'Stop' }).click();
      await main().getByText(`${pastName} is shown at its end`).waitFor();
    });
    await visit('Discovery', 'end', async () => {
      await main().getByText(`${pastName} keeps each server’s own discovery`).waitFor();
      expect(await main().getByText('Discovery on the local port as recorded: Peer-aggregated').count()).toBe(1);
      expect(await page.getByRole('radio').count()).toBe(0);
    });
    await visit('Upgrade impact', 'end', async () => {
      // The clients the whole recording counted (the top bar's counts are the whole recording's too).
      const report = await file!.service.getImpactReport({});
      expect(report.findings.length).toBeGreaterThan(0);
      await main().getByText(`of ${report.findings.length} findings, sorted by`).waitFor();
      expect(await main().innerText()).toContain(`over the whole recording, ${clock(span.startedAt)} to ${clock(span.endedAt)}`);
    });
    await visit('Snapshots', 'end', async () => {
      await main()
        .getByRole('heading', { name: `Record the moment ${clock(span.endedAt)}` })
        .waitFor();
      expect(await main().innerText()).toContain(`From ${pastName}: servers`);
      // No live state to take in a recording: neither the card nor the comparison's "taken now".
      expect(await page.getByRole('button', { name: 'Export current state' }).count()).toBe(0);
      expect(await main().getByRole('option', { name: 'Current live state (taken now)' }).count()).toBe(0);
      const snapshot = await exportMoment();
      expect(snapshot.recorded).toMatchObject({ file: pastName, at: new Date(span.endedAt).toISOString() });
      expect(snapshot.servers.map((s) => s.gitVersion?.slice(0, 5))).toEqual(['v1.37', 'v1.37']);
      await page.getByRole('button', { name: 'Keep this moment for comparison' }).click();
      await main()
        .getByText(`recording at ${clock(span.endedAt)}`)
        .first()
        .waitFor();
    });
    await visit('Recordings', 'end', async () => {
      await page.getByTestId('recording-row').filter({ hasText: pastName }).getByText('shown').waitFor();
    });
  });

  it('over a window ("Whole"): the routing screen previews and replays it, Upgrade impact counts it', async () => {
    await page.getByRole('button', { name: 'Whole' }).click();
    await page.getByRole('region', { name: 'Recorded window', exact: true }).waitFor();
    await visit('GVR matrix', 'window', () => matrixShows(span.endedAt).then(() => undefined));
    await visit('Server health', 'window', async () => {
      await main()
        .getByRole('heading', { name: /^Server health at \d\d:\d\d:\d\d$/ })
        .waitFor();
    });
    await visit('Live routing', 'window', async () => {
      await main()
        .getByText(/all [\d,]+ recorded requests of the window/)
        .first()
        .waitFor({ timeout: 15_000 });
      await replay().getByRole('button', { name: 'Play' }).click();
      await page.getByText(/^Replaying /).waitFor();
      await replay().getByRole('button', { name: 'Stop' }).click();
      await page.getByText(/^Replaying /).waitFor({ state: 'detached' });
    });
    await visit('Discovery', 'window', async () => {
      await main().getByText(`${pastName} keeps each server’s own discovery — the GVR matrix shows it at the window’s end (`).waitFor();
    });
    await visit('Upgrade impact', 'window', async () => {
      await main().getByRole('heading', { name: 'Upgrade impact over the recorded window' }).waitFor();
      await main()
        .getByText(/of \d+ findings, sorted by/)
        .waitFor();
    });
    await visit('Snapshots', 'window', async () => {
      await main().getByRole('button', { name: 'Export this moment' }).waitFor();
      expect(await page.getByRole('button', { name: 'Export current state' }).count()).toBe(0);
    });
  }, 90_000);

  it('at a moment: the screens show the recording then; its snapshot names the moment and compares with the end', async () => {
    const slider = page.getByLabel('Moment of the recording');
    const box = (await slider.boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.getByRole('region', { name: 'Recorded moment', exact: true }).waitFor();
    const at = Number(await slider.inputValue());
    expect(at).toBeGreaterThan(span.startedAt);
    expect(at).toBeLessThan(span.endedAt);
    await visit('GVR matrix', 'moment', () => matrixShows(at).then(() => undefined));
    await visit('Server health', 'moment', async () => {
      await main()
        .getByRole('heading', { name: `Server health at ${clock(at)}` })
        .waitFor();
    });
    await visit('Live routing', 'moment', async () => {
      await main()
        .getByText(/Live routing has no data at a recorded moment/)
        .waitFor();
    });
    await visit('Discovery', 'moment', async () => {
      await main()
        .getByText(`${pastName} keeps each server’s own discovery — the GVR matrix shows it at a recorded moment (${clock(at)})`)
        .waitFor();
    });
    await visit('Upgrade impact', 'moment', async () => {
      await main()
        .getByText(
          /^Upgrade impact reads a span of the recording, not a single moment: .* or go back to the recording's end for its whole span\.$/,
        )
        .waitFor();
    });
    await visit('Snapshots', 'moment', async () => {
      await main()
        .getByRole('heading', { name: `Record the moment ${clock(at)}` })
        .waitFor();
      const snapshot = await exportMoment();
      expect(snapshot.recorded).toMatchObject({ file: pastName, at: new Date(at).toISOString() });
      const then = await file!.service.getStateAt({ at });
      expect(snapshot.servers.map((s) => [s.name, s.health, s.gitVersion])).toEqual(
        then.servers.map((s) => [s.name, s.health, s.gitVersion]),
      );
      await page.getByRole('button', { name: 'Keep this moment for comparison' }).click();
      // This moment before, the end kept earlier after: the rollout between them upgraded each server still on v1.36 then.
      const form = page.getByRole('form', { name: 'Compare two snapshots' });
      const choose = async (field: string, label: string) => {
        const select = form.getByLabel(field);
        await select.selectOption((await select.locator('option', { hasText: label }).getAttribute('value'))!);
      };
      await choose('Before', `recording at ${clock(at)}`);
      await choose('After', `recording at ${clock(span.endedAt)}`);
      await form.getByRole('button', { name: 'Compare' }).click();
      const comparison = page.getByRole('region', { name: 'Comparison' });
      await comparison.waitFor();
      const upgraded = snapshot.servers.filter((s) => !s.gitVersion?.startsWith('v1.37')).length;
      expect(upgraded).toBeGreaterThan(0);
      expect(await comparison.getByRole('list', { name: 'Summary of changes' }).innerText()).toMatch(
        new RegExp(`\\b${upgraded}\\s+servers? upgraded`),
      );
      await shootScreens(page, 'recordings-opened-moment-compare');
    });
  }, 90_000);

  it("a kept moment opens offline; leaving it shows the recording's end, and Back to live the live session", async () => {
    await page.getByRole('tab', { name: 'Snapshots' }).click();
    await page.getByRole('button', { name: `View recording at ${clock(span.endedAt)} offline` }).click();
    const offline = page.getByRole('region', { name: 'Offline snapshot' });
    await offline.waitFor();
    await page.getByRole('tab', { name: 'GVR matrix' }).click();
    await matrixShows(span.endedAt);
    await shootScreens(page, 'recordings-opened-offline-matrix');
    await offline.getByRole('button', { name: 'Return to the recording' }).click();
    await offline.waitFor({ state: 'detached' });
    const shown = page.getByRole('region', { name: 'Recording shown' });
    await shown.waitFor();
    await matrixShows(span.endedAt);
    await shown.getByRole('button', { name: 'Back to live' }).click();
    await shown.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByRole('list', { name: 'Apiservers' }).locator('.release').count(), { timeout: 10_000 }).toBe(3);
    expect(await page.getByRole('alert').allTextContents()).toEqual([]);
    expect(problems).toEqual([]);
  }, 60_000);
});
