// `peerscope recording report -o html` as an operator runs it (the built CLI, a recording the real
// writer made), opened in real Chromium from the file: its four charts and tables show, nothing is
// fetched (every request the page makes is recorded: only the file itself), no console error (its
// own Content-Security-Policy admits nothing but its style sheet, so a blocked part would say so), and
// it reads printed. Screenshots: test-results/recording-report{,-print}.png; and the same of a real
// `peerscope demo` rollout's recording, recording-report-demo{,-print}.png.
// The same report as JSON is valid against docs/recording-report.schema.json; --to-release that the
// catalog does not know is refused naming the flag.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_AGENT, writeRecordedRollout } from '../../proxy-core/test/recorded-rollout.js';
import { CHROMIUM, launchChromium } from '../chromium.js';
import { repoRoot } from '../fixtures.js';

const shots = join(repoRoot, 'test-results');
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`test/e2e/recording-report-html.test.ts: browser part skipped, ${CHROMIUM} is missing (apt-get install chromium)`);

function peerscope(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/peerscope', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('peerscope recording report: HTML, JSON and Markdown from a recording', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'recording-report-html-'));
    file = join(dir, 'rollout.recording.sqlite');
    writeRecordedRollout(file);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints JSON valid against the committed schema, Markdown to standard output, and refuses an unknown --to-release', async () => {
    const json = await peerscope(['recording', 'report', file, '-o', 'json', '--out', '-']);
    expect(json.code, json.stderr).toBe(0);
    const schema = JSON.parse(readFileSync(join(repoRoot, 'docs/recording-report.schema.json'), 'utf8')) as object;
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
    const report = JSON.parse(json.stdout) as { breaking: unknown[]; incidents: unknown[] };
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(report.breaking).toHaveLength(2);
    expect(report.incidents).toHaveLength(7);
    const md = await peerscope(['recording', 'report', file]);
    expect(md.stdout).toContain('## Clients that break at the target release');
    const bad = await peerscope(['recording', 'report', file, '--to-release', 'v9.9']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--to-release: unknown release "v9.9"');
  });

  it.skipIf(!hasChromium)('writes one HTML file that opens in Chromium with nothing fetched and no console error', async () => {
    const html = join(dir, 'rollout-report.html');
    const made = await peerscope(['recording', 'report', file, '-o', 'html', '--out', html]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain(`wrote ${html}: the html report of`);
    await inChromium(html, 'recording-report', async (page) => {
      await expect.poll(() => page.locator('svg').count()).toBe(4);
      // The swim lanes: a lane per server, the rollout's four steps as marks.
      const lanes = page.locator('svg').first();
      for (const server of ['cp-1', 'cp-2', 'cp-3']) await expect.poll(() => lanes.getByText(server, { exact: true }).count()).toBe(1);
      expect(await lanes.locator('path title').count()).toBe(4);
      expect(await page.locator('h2').allTextContents()).toEqual([
        'Servers: release and health over time',
        'Incidents',
        'Clients that break at the target release',
        'False 404s',
        'Requests by outcome',
        'What the port rerouted',
      ]);
      expect(await page.locator('text=discovery-stale').count()).toBeGreaterThan(0);
      expect(await page.getByText(LEGACY_AGENT).count()).toBeGreaterThan(0);
      // The charts are drawn at the page's width, not at zero.
      expect((await lanes.boundingBox())?.width).toBeGreaterThan(900);
    });
  });

  it.skipIf(!hasChromium)('reports a real `peerscope demo` rollout: each server’s release change, in HTML', async () => {
    const recording = join(dir, 'demo.recording.sqlite');
    const demo = spawn(
      process.execPath,
      ['bin/peerscope', 'demo', '--listen', '127.0.0.1:0', '--step-seconds', '1', '--start-delay-seconds', '1', '--record', recording],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const lines = createInterface({ input: demo.stdout! });
    await new Promise<void>((resolve, reject) => {
      lines.on('line', (line) => {
        if (line.startsWith('rollout: every server runs')) resolve();
      });
      demo.once('exit', (code) => reject(new Error(`demo exited ${code} before the rollout ended`)));
    });
    // The port's probes see the last server's new /version a moment after the rollout ends; the file
    // is read as it is written (the write-ahead log), until they have.
    type Report = { servers: { server: string; changes: { kind: string; value: string }[] }[] };
    const releases = async () => {
      const json = await peerscope(['recording', 'report', recording, '-o', 'json']);
      expect(json.code, json.stderr).toBe(0);
      const report = JSON.parse(json.stdout) as Report;
      return report.servers.map((s) => s.changes.filter((c) => c.kind === 'release').map((c) => c.value));
    };
    await expect.poll(releases, { timeout: 20_000, interval: 500 }).toEqual([1, 2, 3].map(() => ['v1.36.0-dev', 'v1.37.0-dev']));
    demo.kill('SIGTERM');
    await once(demo, 'exit');
    const report = JSON.parse((await peerscope(['recording', 'report', recording, '-o', 'json'])).stdout) as Report;
    expect(report.servers.map((s) => s.server)).toEqual(['sim-1', 'sim-2', 'sim-3']);
    const html = join(dir, 'demo-report.html');
    const made = await peerscope(['recording', 'report', recording, '-o', 'html', '--out', html]);
    expect(made.code, made.stderr).toBe(0);
    await inChromium(html, 'recording-report-demo', async (page) => {
      const lanes = page.locator('svg').first();
      for (const s of report.servers) await expect.poll(() => lanes.getByText(s.server, { exact: true }).count()).toBe(1);
      // Each lane names the release each server moved to where it did.
      expect(await lanes.locator('text.release', { hasText: /^v1\.37/ }).count()).toBe(report.servers.length);
    });
  });
});

/**
 * Opens `html` from its file in Chromium, runs `check`, saves a screenshot (on screen and as printed)
 * under test-results/NAME.png, and fails on any request but the file itself or any console error or warning.
 */
async function inChromium(html: string, name: string, check: (page: Page) => Promise<void>): Promise<void> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    const url = pathToFileURL(html).href;
    await page.goto(url);
    await check(page);
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
    await page.emulateMedia({ media: 'print' });
    await page.screenshot({ path: join(shots, `${name}-print.png`), fullPage: true });
    expect(requests).toEqual([url]);
    expect(problems).toEqual([]);
  } finally {
    await browser.close();
  }
}
