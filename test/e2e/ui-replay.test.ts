// Replay in real Chromium, on the demo as `peerscope demo` runs it (it records the session): some 40
// seconds of traffic and a rollout are recorded, then Live routing replays the recording at 60×. The
// replayed clock advances about sixty recorded seconds per second, frame by frame; the table fills in
// recorded order (newest first, never past the clock); at the end every recorded request of the window
// has been played, and Stop returns to the live stream. Screenshots under test-results/ui-replay-*.png.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedCursor } from '../../proxy-core/contract/replay.js';
import { startUiServer, type UiServer } from '../../proxy-core/hosts/ui-server/server.js';
import { startDemoSession, type DemoSession } from '../../proxy-core/hosts/session/demo.js';
import { sampleReplay, timeOf } from './replay-sampler.js';
import { buildRenderer, CHROMIUM, openInChromium, shootScreens } from './ui-demo.js';

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`test/e2e/ui-replay.test.ts: skipped, ${CHROMIUM} is missing (apt-get install chromium)`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!hasChromium)('replaying the recording in Chromium, on the demo', () => {
  let rendererDir: string;
  let session: DemoSession | undefined;
  let control: UiServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    rendererDir = mkdtempSync(join(tmpdir(), 'ui-replay-renderer-'));
    buildRenderer(rendererDir);
    session = await startDemoSession({
      listen: { host: '127.0.0.1', port: 0 },
      trafficRps: 20,
      stepSeconds: 2,
      rolloutAfterSeconds: 8,
      record: {},
    });
    control = await startUiServer({ service: session.service, rendererDir });
    // 40 seconds of the cluster recorded, the rollout under way in it.
    await sleep(40_000);
    ({ browser, page } = await openInChromium(control.url, problems));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await control?.close();
    const file = session?.recordingFile;
    await session?.close();
    if (file) rmSync(dirname(file), { recursive: true, force: true });
    if (rendererDir) rmSync(rendererDir, { recursive: true, force: true });
  });

  /** The recorded requests of the window, each source, read through the contract in pages of 500. */
  /** How far behind the recording may take in a request of the window's end (the audit logs are followed, not awaited). */
  const LATE_MS = 5_000;

  async function recorded(from: number, to: number): Promise<{ port: number; cluster: number; false404s: number }> {
    const n = { port: 0, cluster: 0, false404s: 0 };
    let after: RecordedCursor | undefined;
    do {
      const page = await session!.service.getRecordedEvents({ from, to, limit: 500, ...(after ? { after } : {}) });
      n.port += page.port.length;
      n.cluster += page.cluster.length;
      n.false404s += page.cluster.filter((e) => e.outcome === 'false-404').length;
      after = page.next ?? undefined;
    } while (after);
    return n;
  }

  it('plays the recording at 60×: the clock advances about a minute a second and the table fills in recorded order', async () => {
    await page.getByRole('tab', { name: 'Live routing' }).click();
    const replay = page.getByRole('group', { name: 'Replay', exact: true });
    await replay.waitFor();
    await replay.getByRole('button', { name: '60×' }).click();

    // Halfway, paused: the screen says what it replays, the clock stands mid-window.
    const first = await sampleReplay(page, 'Play', 0.5);
    // The window replayed (the bar shows the replay's own while it is on): by default the recording's last 15 minutes, here all of it.
    const from = Number(await replay.getAttribute('data-from'));
    const to = Number(await replay.getAttribute('data-to'));
    expect(to - from).toBeGreaterThan(30_000);
    await page.getByText(/^Replaying \d\d:\d\d(:\d\d)?–\d\d:\d\d(:\d\d)? at 60×/).waitFor();
    const mid = Number(await replay.locator('output').getAttribute('data-at'));
    expect(mid).toBeGreaterThanOrEqual(from + (to - from) / 2);
    expect(mid).toBeLessThan(to);
    await replay.getByText(/ events replayed, paused$/).waitFor();
    await shootScreens(page, 'replay-60x');
    // The request table, fed by the replay as the live stream feeds it.
    await page.locator('.stream-table').scrollIntoViewIfNeeded();
    await shootScreens(page, 'replay-60x-table');
    await page.getByRole('heading', { name: 'Live routing' }).scrollIntoViewIfNeeded();

    const rest = await sampleReplay(page, 'Play', Infinity);
    const samples = [...first, ...rest];
    console.log(
      `replay 60×: ${samples.length} frames sampled, clock ${new Date(samples[0]!.clock).toISOString()} → ${new Date(samples.at(-1)!.clock).toISOString()}; ${rest.at(-1)!.status}`,
    );
    // The clock only moves forward, in many steps, ending at the window's end.
    const clocks = samples.map((s) => s.clock);
    expect(clocks).toEqual([...clocks].sort((a, b) => a - b));
    expect(new Set(clocks).size).toBeGreaterThan(10);
    expect(clocks.at(-1)).toBe(to);
    // About 60 recorded seconds per second while it played: the median of frame-to-frame rates (a frame the
    // busy machine drew late is followed by one that catches up), over the second run's frames before the end.
    const playing = rest.filter((s) => s.clock > mid && s.clock < to);
    const rates = playing.slice(1).map((s, i) => (s.clock - playing[i]!.clock) / (s.wall - playing[i]!.wall));
    const median = [...rates].sort((a, b) => a - b)[Math.floor(rates.length / 2)];
    console.log(`replay 60×: ${rates.length} frame-to-frame rates, median ${median?.toFixed(1)} recorded ms per ms (load ${loadavg()[0]})`);
    if (median !== undefined) {
      expect(median).toBeGreaterThan(45);
      expect(median).toBeLessThan(75);
    }
    // The table: newest first in every frame, and never a row past the replayed clock.
    for (const s of samples) {
      const times = s.rows.map((r) => timeOf(r, from));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      for (const t of times) expect(t).toBeLessThanOrEqual(s.clock);
    }
    // The table's top row moved forward as the replay went.
    const tops = samples.filter((s) => s.rows.length > 0).map((s) => timeOf(s.rows[0]!, from));
    expect(new Set(tops).size).toBeGreaterThan(2);
    expect(tops).toEqual([...tops].sort((a, b) => a - b));

    // Every recorded request of the window played.
    expect([Number(await replay.getAttribute('data-from')), Number(await replay.getAttribute('data-to'))]).toEqual([from, to]);
    const n = await recorded(from, to);
    // The servers' audit logs are read a moment behind: a request of the window's last seconds may have
    // reached the recording after the replay read past it, so the replay played what was recorded then.
    const late = await recorded(to - LATE_MS, to);
    console.log(
      `replay 60×: the window holds ${n.port} port and ${n.cluster} cluster events (${late.port + late.cluster} in its last seconds)`,
    );
    expect(n.port + n.cluster).toBeGreaterThan(100);
    const replayed = Number(/Replayed ([\d,]+) events/.exec(rest.at(-1)!.status)?.[1]?.replace(/,/g, ''));
    expect(replayed).toBeLessThanOrEqual(n.port + n.cluster);
    expect(replayed).toBeGreaterThanOrEqual(n.port + n.cluster - (late.port + late.cluster));
    // "False 404s by client" counted the replayed ones, each once.
    if (n.false404s > 0) {
      const caption = await page.getByRole('table', { name: 'False 404s by client' }).locator('caption').textContent();
      const counted = Number(/^([\d,]+) false 404/.exec(caption ?? '')?.[1]?.replace(/,/g, ''));
      expect(counted).toBeLessThanOrEqual(n.false404s);
      expect(counted).toBeGreaterThanOrEqual(n.false404s - late.false404s);
    }
    await shootScreens(page, 'replay-60x-ended');
  });

  it('Stop returns to the live stream', async () => {
    await page.getByRole('group', { name: 'Replay', exact: true }).getByRole('button', { name: 'Stop' }).click();
    await page.getByText(/^Replaying /).waitFor({ state: 'detached' });
    await page.getByRole('group', { name: 'Replay', exact: true }).getByRole('button', { name: 'Play' }).waitFor();
    expect(problems).toEqual([]);
  });
});
