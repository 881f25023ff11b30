// The UI in real Chromium (browser mode): a simulated mid-rollout control plane (one apiserver at
// v1.37-dev, two at v1.36-dev), the core and the UI server in-process, the built renderer opened
// with the per-launch token. Checks what an operator relies on and saves a screenshot of every screen
// (light and dark) under test-results/.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UiServer } from '../../proxy-core/hosts/ui-server/server.js';
import type { CoreService } from '../../proxy-core/hosts/service/service.js';
import type { SimController } from '../../proxy-core/hosts/service/sim-controller.js';
import type { RoutingSnapshot } from '../../proxy-core/contract/index.js';
import type { Core } from '../../proxy-core/engine/core.js';
import { gvrKey } from '../../proxy-core/engine/discovery/types.js';
import { impactReportOf } from '../../proxy-core/engine/impact/of-core.js';
import { loadRelease } from '../../proxy-core/engine/releases/index.js';
import type { SimCluster } from '../../proxy-core/sim/index.js';
import { legacyOperatorGvr } from '../../proxy-core/sim/traffic/index.js';
import { CHROMIUM, shootScreens, shots, startUiDemo, stopUiDemo, type UiDemo } from './ui-demo.js';

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`test/e2e/ui.test.ts: skipped, ${CHROMIUM} is missing (apt-get install chromium)`);

describe.skipIf(!hasChromium)('the UI in Chromium', () => {
  let sim: SimCluster;
  let core: Core;
  let simController: SimController;
  let service: CoreService;
  let control: UiServer;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const demo: UiDemo = { problems };

  beforeAll(async () => {
    await startUiDemo(demo);
    ({ sim, core, simController, service, control, browser, page } = demo as Required<UiDemo>);
  }, 180_000);

  afterAll(async () => {
    await stopUiDemo(demo);
  });

  const shoot = (name: string) => shootScreens(page, name);

  it('takes the token out of the address bar', async () => {
    await page.getByRole('tab', { name: 'GVR matrix' }).waitFor();
    expect(page.url()).not.toContain('token');
    expect(page.url()).toBe(`${control.origin}/`);
    // A reload keeps working (the token stays with this tab); a new tab without the link does not.
    await page.reload();
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    const stranger = await browser.newPage();
    await stranger.goto(control.origin);
    await stranger.getByText('This page needs the link Peerscope printed').waitFor();
    await stranger.close();
  });

  it('shows the GVRs only v1.37-dev serves as skewed rows, first', async () => {
    const skewed = core.routes.table.skewed().map(gvrKey);
    expect(skewed.length).toBeGreaterThan(0);
    await page.getByText(`${skewed.length} skewed`).waitFor();
    const firstRow = page.locator('.matrix-gvr-row').first();
    expect(skewed).toContain(await firstRow.getAttribute('data-gvr'));
    await expect.poll(() => firstRow.evaluate((el) => el.classList.contains('skewed'))).toBe(true);
    // One GVR only sim-1 (v1.37) serves: served there, not served on the v1.36 servers.
    const onlyNew = core.routes.table.rows().find((r) => r.servers.length === 1 && r.servers[0] === 'sim-1')!;
    await page.getByLabel('Search').fill(onlyNew.gvr.resource);
    const row = page.locator(`.matrix-gvr-row[data-gvr="${gvrKey(onlyNew.gvr)}"]`);
    await row.waitFor();
    const cells = await row.locator('[role=cell]').allTextContents();
    expect(cells).toEqual(['served', 'not served', 'not served']);
    await page.getByLabel('Search').fill('');
    const total = core.routes.table.rows().length;
    await expect.poll(() => page.locator('.summary').textContent()).toContain(`Showing ${total} of ${total} GVRs`);
    // Simulated servers keep no API registrations: that is not a cluster problem to show.
    expect(await page.getByText('API registration missing').count()).toBe(0);
    await shoot('matrix');
  });

  it('shows a rerouted request live', async () => {
    await page.getByRole('tab', { name: 'Live routing' }).click();
    await page.getByRole('table', { name: 'Requests, newest first' }).waitFor();
    // Every request handled by a v1.36 server, for a GVR only v1.37 serves: the proxy reroutes it.
    await service.setPolicy({ policy: 'pin:sim-2' });
    const onlyNew = core.routes.table.rows().find((r) => r.servers.length === 1 && r.servers[0] === 'sim-1')!;
    const { group, version, resource } = onlyNew.gvr;
    const path = `/apis/${group}/${version}/${resource}`;
    const response = await fetch(`${core.address()!.url}${path}`);
    expect(response.headers.get('x-peerscope-route')).toContain('outcome=rerouted');
    await service.setPolicy({ policy: 'round-robin' });
    // This request's row: the simulated traffic may send the same path through another handling server.
    const rerouted = page.locator(`.stream-row[data-outcome="rerouted"]`).filter({ hasText: path }).filter({ hasText: 'sim-2' });
    await rerouted.first().waitFor({ timeout: 15_000 });
    const text = await rerouted.first().textContent();
    expect(text).toContain('sim-1');
    // The rate chart has drawn stacked areas.
    await page.locator('.rate-area').first().waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Pause stream' }).click();
    await page.getByRole('button', { name: 'Resume stream' }).waitFor();
    await page.getByRole('button', { name: 'Resume stream' }).click();
    await shoot('live-routing');
  });

  it('shows each apiserver with its release and health', async () => {
    await page.getByRole('tab', { name: 'Server health' }).click();
    for (const name of ['sim-1', 'sim-2', 'sim-3']) await page.getByRole('article', { name: `apiserver ${name}` }).waitFor();
    await expect.poll(() => page.getByRole('article', { name: 'apiserver sim-1' }).textContent()).toContain('v1.37.0-dev');
    await page.locator('.recharts-line').first().waitFor({ timeout: 15_000 });
    await shoot('server-health');
  });

  it('switches the discovery mode of the local port with the toggle', async () => {
    await page.getByRole('tab', { name: 'Discovery' }).click();
    // The radios are drawn before the port's mode is read (disabled, none checked): wait for the read.
    await expect.poll(() => page.getByRole('radio', { name: /Peer-aggregated/ }).isChecked()).toBe(true);
    await page.getByRole('radio', { name: /No peer/ }).check();
    await expect.poll(() => core.discoveryMode()).toBe('nopeer');
    await expect.poll(() => page.getByRole('radio', { name: /No peer/ }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'sim-2' }).click();
    await page.getByRole('list', { name: 'GVRs added by the merge for sim-2' }).waitFor();
    await shoot('discovery');
    await page.getByRole('radio', { name: /Peer-aggregated/ }).check();
    await expect.poll(() => core.discoveryMode()).toBe('peer-aggregated');
  });

  it('shows the upgrade impact: the legacy operator breaks, v1.37-only GVRs are skewed; sorts and filters', async () => {
    await page.getByRole('tab', { name: 'Upgrade impact' }).click();
    await page.getByRole('heading', { name: 'Upgrade impact' }).waitFor();
    // The generator's legacy operator lists a GVR only the v1.36 servers serve, which v1.37-dev removed.
    const legacyGvr = legacyOperatorGvr([loadRelease('v1.36-dev'), loadRelease('v1.37-dev')])!;
    const [group, version, resource] = legacyGvr.split('/');
    const legacy = page
      .locator('.impact-table tbody tr')
      .filter({ hasText: 'legacy-operator (legacy-controller)' })
      .filter({ hasText: `${group}/${version} ${resource}` });
    await legacy.first().waitFor({ timeout: 15_000 });
    expect(await legacy.first().getAttribute('data-impact')).toBe('removed');
    expect(await legacy.first().textContent()).toContain('not served by v1.37-dev → 404 after the upgrade');
    await page.locator('.impact-table tbody tr[data-impact="skewed"]').first().waitFor({ timeout: 15_000 });
    // What the page shows is what the core reports.
    const kinds = new Set(impactReportOf(core).findings.map((f) => f.impact));
    expect(kinds).toContain('removed');
    expect(kinds).toContain('skewed');
    await shoot('upgrade-impact');
    // By volume: the rows' request totals come down.
    await page.getByRole('button', { name: 'Requests' }).click();
    expect(await page.getByRole('columnheader', { name: /Requests/ }).getAttribute('aria-sort')).toBe('descending');
    const totals = await page
      .locator('.impact-table tbody tr')
      .evaluateAll((rows) =>
        rows.map((r) =>
          [...r.querySelectorAll('td.num div')].reduce(
            (n, d) => n + Number(/ ([\d,]+) /.exec(d.textContent ?? '')?.[1]?.replace(/,/g, '') ?? 0),
            0,
          ),
        ),
      );
    expect(totals.length).toBeGreaterThan(2);
    expect(totals).toEqual([...totals].sort((a, b) => b - a));
    // One client only.
    const filter = page.getByRole('combobox', { name: 'Filter by client' });
    const option = (await filter.locator('option').allTextContents()).find((t) => t.startsWith('legacy-operator'))!;
    await filter.selectOption({ label: option });
    const names = await page
      .locator('.impact-table tbody th[scope=row]')
      .evaluateAll((cells) => cells.map((c) => c.firstChild?.textContent));
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names)).toEqual(new Set(['legacy-operator (legacy-controller)']));
    await shoot('upgrade-impact-filtered');
    await filter.selectOption({ index: 0 });
    await page.getByRole('button', { name: /Impact/ }).click();
  });

  it('stays bounded under a flood of routing events (batched by the host, capped by the page)', async () => {
    await page.getByRole('tab', { name: 'Live routing' }).click();
    await page.getByRole('table', { name: 'Requests, newest first' }).waitFor();
    const batchSizes: number[] = [];
    const unsubscribe = service.subscribe((e) => {
      if (e.type === 'routing') batchSizes.push(e.events.length);
    });
    const flood = 20_000;
    for (let sent = 0; sent < flood; sent += 1_000) {
      for (let i = 0; i < 1_000; i++) {
        core.telemetry.record({
          at: Date.now(),
          userAgent: 'flood-test/1.0',
          method: 'GET',
          verb: 'get',
          path: '/api/v1/namespaces/default/configmaps/flood',
          group: '',
          version: 'v1',
          resource: 'configmaps',
          subresource: '',
          namespace: 'default',
          handling: 'sim-2',
          answeredBy: 'sim-2',
          outcome: 'local',
          status: 200,
          latencyMs: 0.5,
          bytesIn: 0,
          bytesOut: 10,
        });
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    await page.locator('.stream-row').filter({ hasText: 'flood-test' }).first().waitFor();
    unsubscribe();
    expect(Math.max(...batchSizes)).toBeLessThanOrEqual(500);
    // The page keeps at most MAX_ROWS (2,000) events, whatever arrived.
    const bufferedLocal = Number(
      (await page
        .getByRole('button', { name: /^local/ })
        .locator('.count')
        .textContent()) ?? NaN,
    );
    expect(bufferedLocal).toBeLessThanOrEqual(2_000);
    expect(bufferedLocal).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Pause stream' }).click();
    await page.getByRole('button', { name: 'Resume stream' }).click();
  });

  it('exports a snapshot as a JSON file', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export snapshot' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^peerscope-snapshot-.*\.json$/);
    const path = join(shots, 'snapshot.json');
    await download.saveAs(path);
    const snapshot = JSON.parse(readFileSync(path, 'utf8')) as { kind: string; servers: unknown[]; routeTable: { skewed: string[] } };
    expect(snapshot.kind).toBe('RoutingSnapshot');
    expect(snapshot.servers).toHaveLength(3);
    expect(snapshot.routeTable.skewed.length).toBeGreaterThan(0);
    expect(readFileSync(path, 'utf8')).not.toContain(sim.token!);
  });

  it('opens the exported snapshot offline: a banner, and every screen shows the snapshot; back to live', async () => {
    const path = join(shots, 'snapshot.json');
    const saved = JSON.parse(readFileSync(path, 'utf8')) as RoutingSnapshot;
    await page.getByRole('tab', { name: 'Snapshots' }).click();
    await page.getByLabel('Snapshot files to open').setInputFiles(path);
    const banner = page.getByRole('region', { name: 'Offline snapshot' });
    await banner.waitFor();
    expect(await banner.textContent()).toMatch(
      /^Viewing snapshot taken at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d from the simulated cluster — offline\. snapshot\.json · Peerscope /,
    );
    await page.getByRole('heading', { name: 'Viewing snapshot.json' }).waitFor();
    await page.getByRole('table', { name: 'Requests by GVR and outcome at capture time' }).waitFor();
    // Nothing that would change the cluster is offered while offline.
    expect(await page.getByText('offline snapshot').isVisible()).toBe(true);
    expect(await page.getByRole('group', { name: 'Simulated rollout' }).count()).toBe(0);
    expect(await page.getByLabel('Handling policy').isDisabled()).toBe(true);
    await shoot('snapshot-offline');
    await page.getByRole('tab', { name: 'GVR matrix' }).click();
    await page.getByText(`${saved.routeTable.skewed.length} skewed`).waitFor();
    await expect.poll(() => page.locator('.summary').textContent()).toContain(`of ${saved.routeTable.rows.length} GVRs`);
    expect(saved.routeTable.skewed).toContain(await page.locator('.matrix-gvr-row').first().getAttribute('data-gvr'));
    await page.getByRole('tab', { name: 'Live routing' }).click();
    await page.getByRole('heading', { name: 'Routing at capture time' }).waitFor();
    await page.locator('.stream-row[data-outcome]').first().waitFor();
    expect(await page.getByRole('button', { name: 'Pause stream' }).count()).toBe(0);
    await shoot('snapshot-offline-routing');
    await page.getByRole('tab', { name: 'Server health' }).click();
    await page.getByRole('heading', { name: 'Server health at capture time' }).waitFor();
    await shoot('snapshot-offline-health');
    // Discovery as recorded: the merged document against each server's own, and the mode, read-only.
    await page.getByRole('tab', { name: 'Discovery' }).click();
    await page.getByRole('heading', { name: 'Discovery at capture time' }).waitFor();
    await page
      .getByText(`Merged document as ${saved.mergedDiscovery!.handling} answers it: ${saved.mergedDiscovery!.gvrs.length} GVRs`)
      .waitFor();
    expect(await page.getByRole('radio').count()).toBe(0);
    await shoot('snapshot-offline-discovery');
    // The upgrade-impact report as the port made it at capture time.
    await page.getByRole('tab', { name: 'Upgrade impact' }).click();
    await page.getByRole('heading', { name: 'Upgrade impact at capture time' }).waitFor();
    await page.locator('.impact-table tbody tr').first().waitFor();
    expect(await page.locator('.impact-table tbody tr').count()).toBe(saved.impact!.findings.length);
    expect(await page.getByRole('combobox', { name: 'Target release' }).count()).toBe(0);
    await shoot('snapshot-offline-impact');
    await banner.getByRole('button', { name: 'Return to live' }).click();
    await banner.waitFor({ state: 'detached' });
    await page
      .getByRole('status')
      .filter({ hasText: /^live$/ })
      .waitFor();
    await page.getByRole('group', { name: 'Simulated rollout' }).waitFor();
  });

  it('names a broken snapshot file (line and column, or the field) and shows nothing of it', async () => {
    await page.getByRole('tab', { name: 'Snapshots' }).click();
    const text = readFileSync(join(shots, 'snapshot.json'), 'utf8');
    const cut = text.slice(0, Math.floor(text.length / 2));
    const wrong = JSON.parse(text) as { servers: { health: unknown }[] };
    wrong.servers[1]!.health = 42;
    await page.getByLabel('Snapshot files to open').setInputFiles([
      { name: 'cut-short.json', mimeType: 'application/json', buffer: Buffer.from(cut) },
      { name: 'wrong-type.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(wrong)) },
    ]);
    const syntax = page.getByRole('alert').filter({ hasText: 'cut-short.json could not be opened' });
    await syntax.waitFor();
    expect(await syntax.textContent()).toContain('not valid JSON');
    expect(await syntax.textContent()).toContain(`line ${cut.split('\n').length}, column`);
    const field = page.getByRole('alert').filter({ hasText: 'wrong-type.json could not be opened' });
    await field.waitFor();
    expect(await field.textContent()).toContain('/servers/1/health');
    expect(await page.getByRole('region', { name: 'Offline snapshot' }).count()).toBe(0);
    await shoot('snapshot-import-error');
  });

  it('compares snapshots taken before and after a rollout step', async () => {
    await page.getByRole('tab', { name: 'Snapshots' }).click();
    await page.getByRole('button', { name: 'Keep for comparison' }).click();
    const kept = page.getByRole('rowheader', { name: /^live state at/ }).first();
    await kept.waitFor();
    const keptLabel = (await kept.textContent())!.replace('kept live', '');
    // One step of the rollout: the first v1.36 server drained, stopped and back at v1.37, then pause.
    await page.getByRole('button', { name: 'Start rollout' }).click();
    await expect.poll(() => simController.status().rollout.upgraded.length, { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
    await page.getByRole('button', { name: 'Pause rollout' }).click();
    const upgraded = simController.status().rollout.upgraded[0]!;
    // The core has re-read the upgraded server's discovery (it now serves a GVR only v1.37 has).
    const onlyNew = core.routes.table.rows().find((r) => r.servers.includes('sim-1') && r.servers.length < 3)!;
    await expect
      .poll(() => core.servers.discovery(upgraded)?.gvrs.some((g) => gvrKey(g) === gvrKey(onlyNew.gvr)), { timeout: 15_000 })
      .toBe(true);
    const form = page.getByRole('form', { name: 'Compare two snapshots' });
    const beforeOption = (await form.getByLabel('Before').locator('option').allTextContents()).find((t) => t.startsWith(keptLabel))!;
    await form.getByLabel('Before').selectOption({ label: beforeOption });
    await form.getByLabel('After').selectOption('live-now');
    await form.getByRole('button', { name: 'Compare' }).click();
    const result = page.getByRole('region', { name: 'Comparison' });
    await result.waitFor();
    await expect
      .poll(() => result.getByRole('row', { name: new RegExp(`^${upgraded} upgraded`) }).textContent())
      .toContain('v1.36.0-dev → v1.37.0-dev');
    // Pause takes effect between phases: on a loaded machine a second server may be upgraded first.
    expect(await result.getByRole('list', { name: 'Summary of changes' }).textContent()).toMatch(/\d+ servers? upgraded/);
    const gained = result.getByRole('list', { name: `GVRs ${upgraded} gained` });
    const more = gained.getByRole('button', { name: /more$/ });
    if (await more.count()) await more.click();
    expect(await gained.textContent()).toContain(gvrKey(onlyNew.gvr));
    await result.scrollIntoViewIfNeeded();
    await shoot('snapshot-compare');
  }, 120_000);

  it('keyboard: arrow keys move between the tabs', async () => {
    await page.getByRole('tab', { name: 'Discovery' }).focus();
    await page.keyboard.press('Home');
    expect(await page.getByRole('tab', { name: 'GVR matrix' }).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('tab', { name: 'Live routing' }).getAttribute('aria-selected')).toBe('true');
  });

  it('starts the simulated rollout from the UI; the timeline shows each upgrade and the skew ends', async () => {
    await page.getByRole('tab', { name: 'Server health' }).click();
    // The comparison above paused the rollout after its first step; on a loaded machine the pause can
    // come after the last step (it takes effect between phases), and a finished rollout has nothing to resume.
    if (simController.status().rollout.phase !== 'done') await page.getByRole('button', { name: /^(Start|Resume) rollout$/ }).click();
    await expect.poll(() => simController.status().rollout.phase, { timeout: 60_000 }).toBe('done');
    await page.getByRole('status').filter({ hasText: 'done' }).waitFor({ timeout: 15_000 });
    await expect.poll(() => core.routes.table.skewed().length, { timeout: 15_000 }).toBe(0);
    for (const name of ['sim-2', 'sim-3']) {
      await expect
        .poll(() => page.getByRole('article', { name: `apiserver ${name}` }).textContent(), { timeout: 15_000 })
        .toContain('v1.37.0-dev');
    }
    // Wait for the health history to bring the last segments.
    await expect.poll(() => page.locator('.timeline-row').nth(2).locator('.seg').count(), { timeout: 15_000 }).toBeGreaterThan(2);
    await shoot('server-health-after-rollout');
    await page.getByRole('tab', { name: 'GVR matrix' }).click();
    await page.getByText('0 skewed').waitFor({ timeout: 15_000 });
    await shoot('matrix-after-rollout');
  }, 150_000);

  it('still shows the skew of a snapshot from before the rollout, offline, while the live matrix has none', async () => {
    const saved = JSON.parse(readFileSync(join(shots, 'snapshot.json'), 'utf8')) as RoutingSnapshot;
    expect(saved.routeTable.skewed.length).toBeGreaterThan(0);
    await page.getByRole('tab', { name: 'Snapshots' }).click();
    await page.getByRole('button', { name: 'View snapshot.json offline' }).click();
    await page.getByRole('region', { name: 'Offline snapshot' }).waitFor();
    await page.getByRole('tab', { name: 'GVR matrix' }).click();
    await page.getByText(`${saved.routeTable.skewed.length} skewed`).waitFor();
    await shoot('snapshot-offline-matrix');
    await page.getByRole('region', { name: 'Offline snapshot' }).getByRole('button', { name: 'Return to live' }).click();
    await page.getByText('0 skewed').waitFor();
  });

  it('ran with no CSP violation and no page error', () => {
    expect(problems).toEqual([]);
  });
});
