// The cluster source in real Chromium, on the demo as `peerscope demo` and `npm start` run it: the
// simulated servers write audit logs, the core follows them, and the traffic generator's clients are
// sent straight to the servers as well as through the port. During the rollout an upgraded server
// answers 404 for what only its peers still serve: Live routing's cluster source shows those false
// 404s, the port's never does. Screenshots (light and dark) under test-results/ui-cluster-*.png.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUiServer, type UiServer } from '../../proxy-core/hosts/ui-server/server.js';
import { loadRelease } from '../../proxy-core/engine/releases/index.js';
import { startDemoSession, type DemoSession } from '../../proxy-core/hosts/session/demo.js';
import { legacyOperatorGvr, TRAFFIC_CLIENTS } from '../../proxy-core/sim/traffic/index.js';
import { buildRenderer, CHROMIUM, openInChromium, shootScreens } from './ui-demo.js';

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`test/e2e/ui-cluster.test.ts: skipped, ${CHROMIUM} is missing (apt-get install chromium)`);

describe.skipIf(!hasChromium)('the cluster source in Chromium, on the demo', () => {
  let rendererDir: string;
  let session: DemoSession | undefined;
  let control: UiServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    // Its own bundle: ui.test.ts may be building dist/renderer at the same time.
    rendererDir = mkdtempSync(join(tmpdir(), 'ui-cluster-renderer-'));
    buildRenderer(rendererDir);
    session = await startDemoSession({ listen: { host: '127.0.0.1', port: 0 }, trafficRps: 20, stepSeconds: 2 });
    control = await startUiServer({ service: session.service, rendererDir });
    ({ browser, page } = await openInChromium(control.url, problems));
    // One server upgraded, then the rollout paused: the cluster stays mixed for every test below, so
    // false 404s keep coming however slowly a loaded machine gets to them (a rollout left running
    // could finish first, and then there are none).
    const rollout = session.rollout;
    rollout.startRollout();
    for (const until = Date.now() + 90_000; rollout.status().rollout.upgraded.length === 0;) {
      if (Date.now() > until) throw new Error('the demo rollout upgraded no server within 90 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    rollout.pauseRollout();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await control?.close();
    await session?.close();
    if (rendererDir) rmSync(rendererDir, { recursive: true, force: true });
  });

  const shoot = (name: string) => shootScreens(page, `cluster-${name}`);

  it('Live routing shows the cluster source first, and the false 404s of the rollout in the table and the rate chart', async () => {
    await page.getByRole('tab', { name: 'Live routing' }).click();
    const source = page.getByRole('group', { name: 'Source' });
    await source.waitFor();
    expect(await source.getByRole('button', { name: 'Cluster' }).getAttribute('aria-pressed')).toBe('true');
    const falseRow = page.locator('.stream-row[data-outcome="false-404"]');
    await falseRow.first().waitFor({ timeout: 60_000 });
    // Hold the table while false 404s are in view, for the screenshot and the checks.
    await page.getByRole('button', { name: 'Pause stream' }).click();
    const text = (await falseRow.first().textContent()) ?? '';
    expect(text).toContain('false 404');
    expect(text).toMatch(/sim-\d/);
    expect(text).toContain('404');
    // What the server answered for the core's own judgement: a false 404 is a GVR a peer serves.
    const [seen] = session!.core.cluster!.recent().filter((e) => e.outcome === 'false-404');
    expect(seen?.code).toBe(404);
    await page.locator('.rate-area[data-outcome="false-404"]').first().waitFor({ timeout: 15_000 });
    expect(await page.getByRole('list', { name: 'Outcomes in the chart' }).textContent()).toContain('false 404');
    // The top bar's cluster counters count them; the port's counters name their source.
    const clusterTotals = page.getByLabel('Requests the apiservers answered, from their audit logs');
    // Its second counter (after requests), pushed with every cluster batch.
    const falseCount = async () => Number((await clusterTotals.locator('dd').nth(1).textContent())?.replace(/\D/g, ''));
    await expect.poll(falseCount, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await page.getByLabel('Requests through the port').textContent()).toMatch(/^port/);
    // Who gets them: the tally per client, server and GVR beside the stream.
    const byClient = page.getByRole('table', { name: 'False 404s by client' });
    await byClient.locator('tbody tr').first().waitFor({ timeout: 15_000 });
    expect(Number(await byClient.locator('tbody tr').first().locator('td.num').textContent())).toBeGreaterThan(0);
    await shoot('live-routing');
    // The operator's question: who gets false 404s? Only the 404s of either kind, still paused.
    const outcomes = page.getByRole('group', { name: 'Show outcomes' });
    for (const hide of [/^local/, /^non-resource/]) await outcomes.getByRole('button', { name: hide }).click();
    expect(await page.locator('.stream-row[data-outcome="local"]').count()).toBe(0);
    await falseRow.first().waitFor();
    await shoot('live-routing-404s');
    for (const show of [/^local/, /^non-resource/]) await outcomes.getByRole('button', { name: show }).click();
    await page.getByRole('button', { name: 'Resume stream' }).click();
  });

  it('the GVR matrix says per cell what each server answered per minute, the false 404s apart', async () => {
    await page.getByRole('tab', { name: 'GVR matrix' }).click();
    // The select's name holds its label and its chosen option ("Show All GVRs").
    const show = page.getByRole('combobox', { name: /^Show/ });
    await show.selectOption('skewed');
    const falseCell = page.locator('.matrix-cell .cell-false-404');
    await falseCell.first().waitFor({ timeout: 15_000 });
    // A false 404 is answered by a server that does not serve the GVR (one that is up: during the
    // rollout the server that answered some of them may be down now, and its cell says so instead).
    const cell = page.locator('.matrix-cell.cell-missing', { has: page.locator('.cell-false-404') }).first();
    await cell.waitFor({ timeout: 15_000 });
    expect(await cell.getAttribute('title')).toMatch(/^sim-\d: not served; answered \d+\/min · \d+ false 404\/min$/);
    await falseCell.first().scrollIntoViewIfNeeded();
    await shoot('matrix');
    await show.selectOption('all');
    await page.getByRole('tab', { name: 'Live routing' }).click();
  });

  it('the port source never shows a false 404: the port reroutes what the handling server lacks', async () => {
    await page.getByRole('tab', { name: 'Live routing' }).click();
    const source = page.getByRole('group', { name: 'Source' });
    await source.getByRole('button', { name: 'Port' }).click();
    await page.locator('.stream-row[data-source="port"]').first().waitFor({ timeout: 15_000 });
    expect(await page.locator('.stream-row[data-outcome="false-404"]').count()).toBe(0);
    expect(
      await page
        .getByRole('group', { name: 'Show outcomes' })
        .getByRole('button', { name: /^false 404/ })
        .count(),
    ).toBe(0);
    await source.getByRole('button', { name: 'Both' }).click();
    await page.getByRole('columnheader', { name: 'source' }).waitFor();
    await page.locator('.stream-row[data-source="cluster"]').first().waitFor();
    await page.locator('.stream-row[data-source="port"]').first().waitFor();
    await shoot('live-routing-both');
    await source.getByRole('button', { name: 'Cluster' }).click();
  });

  it('Server health shows what each server answered per minute, from its audit log', async () => {
    await page.getByRole('tab', { name: 'Server health' }).click();
    for (const name of ['sim-1', 'sim-2', 'sim-3']) {
      const rates = page.getByRole('region', { name: `What ${name} answered, from its audit log` });
      await rates.waitFor({ timeout: 15_000 });
      const perMinute = async () => Number((await rates.locator('dd').first().textContent())?.replace(/\D/g, ''));
      // The health history is polled, and a loaded machine may take a while to bring a minute's first request.
      await expect.poll(perMinute, { timeout: 30_000 }).toBeGreaterThan(0);
    }
    await shoot('server-health');
  }, 120_000);

  it("Upgrade impact lists the cluster's clients from the audit logs, each finding naming its source", async () => {
    await page.getByRole('tab', { name: 'Upgrade impact' }).click();
    const table = page.locator('.impact-table');
    await table.waitFor({ timeout: 30_000 });
    // The demo's clients also talk straight to the servers: their findings come from the audit logs.
    const fromAudit = page.locator('.impact-table tr[data-source="cluster-audit"]');
    await fromAudit.first().waitFor({ timeout: 30_000 });
    expect(await fromAudit.first().locator('.badge.source-cluster-audit').textContent()).toBe('cluster audit');
    expect(await page.locator('.impact').textContent()).toMatch(/through the port and in the cluster's audit logs over the last/);
    // What the core computes is what the screen lists: every audit-log finding's client and GVR.
    const report = await session!.service.getImpactReport();
    const expected = report.findings.filter((f) => f.source === 'cluster-audit');
    expect(expected.length).toBeGreaterThan(0);
    await page.getByRole('combobox', { name: 'Filter by source' }).selectOption('cluster-audit');
    const shown = await page.locator('.impact-table tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-source')));
    expect(new Set(shown)).toEqual(new Set(['cluster-audit']));
    const clients = await page.locator('.impact-table tbody th[scope="row"]').allTextContents();
    // The report is read again every few seconds: a client of the core's report taken now is on screen.
    for (const f of expected.slice(0, 3)) expect(clients.join('\n')).toContain(f.client.name);
    await shoot('upgrade-impact');
    await page.getByRole('combobox', { name: 'Filter by source' }).selectOption('');
  }, 120_000);

  it("Upgrade impact shows the legacy operator's calls of a deprecated API, as the servers' audit logs mark them", async () => {
    const legacy = TRAFFIC_CLIENTS.legacyOperator.userAgent;
    const [group, version, resource] = legacyOperatorGvr([loadRelease('v1.36-dev'), loadRelease('v1.37-dev')])!.split('/');
    // The cluster view's count of deprecated calls per client (the servers' k8s.io/deprecated, k8s.io/removed-release).
    await expect
      .poll(
        async () =>
          (await session!.service.getOverview()).cluster?.deprecatedCalls?.find(
            (d) => d.userAgent === legacy && d.gvr.group === group && d.gvr.version === version && d.gvr.resource === resource,
          )?.removedRelease,
        { timeout: 60_000 },
      )
      .toBe('1.37');
    await page.getByRole('tab', { name: 'Upgrade impact' }).click();
    await page.getByRole('combobox', { name: 'Filter by source' }).selectOption('cluster-audit');
    const row = page
      .locator('.impact-table tr[data-source="cluster-audit"][data-impact="removed"]')
      .filter({ hasText: 'legacy-operator' })
      .filter({ hasText: `${group}/${version} ${resource}` })
      .first();
    await row.waitFor({ timeout: 60_000 });
    // The report is read again every few seconds: the first read may predate the first marked call.
    await expect
      .poll(async () => (await row.locator('.impact-message').textContent()) ?? '', { timeout: 30_000 })
      .toMatch(
        new RegExp(
          `already warns "${group}/${version} ${resource} is deprecated \\(audit annotation k8s\\.io/deprecated\\); removed in 1\\.37`,
        ),
      );
    await row.scrollIntoViewIfNeeded();
    await shoot('upgrade-impact-deprecated');
    await page.getByRole('combobox', { name: 'Filter by source' }).selectOption('');
  }, 150_000);

  it('ran with no CSP violation and no page error', () => {
    expect(problems).toEqual([]);
  });
});
