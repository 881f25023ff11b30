// A long read of an audit log in real Chromium, as the desktop app's "Open audit log…" starts one: the
// page is open on one cluster, the app switches to a core reading a large log of the past once (a
// .gz of 300,000 requests), and the top bar shows the read's progress bar; Cancel stops the read
// and what was read still counts. Screenshot: test-results/ui-audit-read.png.
import { createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUiServer, type UiServer } from '../../proxy-core/hosts/ui-server/server.js';
import { createCoreService, type CoreService } from '../../proxy-core/hosts/service/service.js';
import { createCore, type Core } from '../../proxy-core/engine/core.js';
import { loadRelease } from '../../proxy-core/engine/releases/index.js';
import { createSwitchingService } from '../../proxy-core/hosts/session/switching-service.js';
import { startSimCluster, type SimCluster } from '../../proxy-core/sim/index.js';
import { buildRenderer, CHROMIUM, openInChromium, shots } from './ui-demo.js';

const REQUESTS = 300_000;
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`test/e2e/ui-audit-read.test.ts: skipped, ${CHROMIUM} is missing (apt-get install chromium)`);

/** One ResponseComplete line per request: GETs of PodCertificateRequests that server a (v1.36-dev) answered 404. */
function* auditLines(): Generator<string> {
  for (let i = 0; i < REQUESTS; i++)
    yield `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"r-${i}","stage":"ResponseComplete","requestURI":"/apis/certificates.k8s.io/v1/podcertificaterequests","verb":"list","user":{"username":"token-admin"},"userAgent":"cert-rotator/v0.3.1","objectRef":{"resource":"podcertificaterequests","apiGroup":"certificates.k8s.io","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":404},"requestReceivedTimestamp":"2026-11-26T05:00:00.000000Z","stageTimestamp":"2026-11-26T05:00:00.001000Z"}\n`;
}

describe.skipIf(!hasChromium)('a long audit log read in Chromium: progress bar and Cancel', () => {
  let dir: string;
  let sim: SimCluster;
  const cores: Core[] = [];
  const services: CoreService[] = [];
  let control: UiServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];
  const switching = createSwitchingService();
  let log: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ui-audit-read-'));
    buildRenderer(join(dir, 'renderer'));
    log = join(dir, 'a-audit.log.gz');
    await pipeline(Readable.from(auditLines()), createGzip(), createWriteStream(log));
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['a', 'b'] });
    // First a session without a cluster source, as the app before "Open audit log…".
    const first = createCore({ servers: sim.serverConfigs(), listen: { port: 0 } });
    cores.push(first);
    await first.start();
    services.push(createCoreService(first));
    switching.switchTo({ service: services[0]!, label: 'context sim' });
    control = await startUiServer({ service: switching, rendererDir: join(dir, 'renderer') });
    ({ browser, page } = await openInChromium(control.url, problems));
    await page
      .getByRole('status')
      .filter({ hasText: /^live$/ })
      .waitFor({ timeout: 30_000 });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await control?.close();
    for (const s of services) s.close();
    for (const c of cores) await c.close(0);
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shows the read under way with its progress, cancels it from the page, and keeps what was read', async () => {
    const reading = createCore({
      servers: sim.serverConfigs(),
      listen: { port: 0 },
      auditLogs: [{ server: 'a', file: log }],
      auditFollow: false,
    });
    cores.push(reading);
    await reading.start();
    services.push(createCoreService(reading));
    switching.switchTo({ service: services[1]!, label: 'context sim' });
    const bar = page.getByRole('progressbar');
    await bar.waitFor({ timeout: 30_000 });
    // It moves: the figure beside it grows while the read goes on.
    const readNow = async () =>
      Number(/([\d,]+) requests/.exec((await page.locator('.audit-read').textContent()) ?? '')?.[1]?.replace(/,/g, ''));
    const first = await readNow();
    await expect.poll(readNow, { timeout: 30_000 }).toBeGreaterThan(first);
    expect(await page.getByText(/^Reading 1 audit log$/).count()).toBe(1);
    await page.locator('.audit-read').screenshot({ path: join(shots, 'ui-audit-read-bar.png') });
    await page.screenshot({ path: join(shots, 'ui-audit-read.png') });
    await page.locator('.audit-read').getByRole('button', { name: 'Cancel' }).click();
    const said = page.locator('.audit-read').getByRole('status');
    await said.waitFor({ timeout: 15_000 });
    // The core stopped: what it counted is what the page says, fewer than the file holds, all false 404s.
    expect(reading.auditRead()?.state).toBe('cancelled');
    const counted = reading.auditRead()!.requests;
    expect(await said.textContent()).toMatch(
      new RegExp(`^Read of 1 audit log cancelled at \\d+ %: the ${counted.toLocaleString('en')} requests read count$`),
    );
    expect(counted).toBeLessThan(REQUESTS);
    await new Promise((r) => setTimeout(r, 500));
    expect(reading.auditRead()!.requests).toBe(counted);
    expect(reading.cluster!.totals()['false-404']).toBe(counted);
    await page.screenshot({ path: join(shots, 'ui-audit-read-cancelled.png') });
  }, 120_000);

  it('ran with no CSP violation and no page error', () => {
    expect(problems).toEqual([]);
  });
});
