// A real cluster's traffic in the UI, in real Chromium: two real kube-apiservers of two releases, each
// writing an audit log (policy level Metadata) that the core follows, their own Mixed Version Proxy
// off (no --peer-ca-file, as kubeadm leaves it). Clients send requests STRAIGHT to the servers, not
// through the port: what only the newer release serves sent to the older (false 404s), what the newer
// removed sent to the newer, and kubectl. Live routing's cluster source must show those false 404s
// and count them per client; Upgrade impact must list those clients from the audit logs. Which GVRs
// each release serves is read from the real servers, not assumed.
// Screenshots: test-results/kube-cluster-live-routing.png and kube-cluster-upgrade-impact.png.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serversFromKubeconfig } from '../../proxy-core/engine/cluster/from-kubeconfig.js';
import { startUiHost, type UiHost } from '../../proxy-core/hosts/cli/ui.js';
import { createCore, type Core } from '../../proxy-core/engine/core.js';
import { repoRoot } from '../fixtures.js';
import { kubeBinaries, skipKube } from './binaries.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { kubectl } from './peerscope-cli.js';
import { waitFor } from './processes.js';
import { servedGvrs, type ServedGvr } from './served-gvrs.js';
import { CHROMIUM, launchChromium } from '../chromium.js';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
`;
const CERT_ROTATOR = 'cert-rotator/v0.3.1';
const IPAM = 'ipam-controller/v0.4.0';
/** What each client is sent to send, and how many false 404s it gets for it. */
const FALSE_404S = { 'cert-rotator': 5, kubectl: 3, 'ipam-controller': 1 } as const;

const noChromium = !existsSync(CHROMIUM);
if (noChromium && !skipKube()) console.log(`test/kube/cluster-ui.test.ts: skipped, ${CHROMIUM} is missing (apt-get install chromium)`);

describe.skipIf(skipKube() || noChromium)(
  "a real cluster's Live routing and Upgrade impact from the servers' audit logs, in Chromium",
  () => {
    let cp: ControlPlane;
    let dir: string;
    let core: Core;
    let ui: UiHost;
    let browser: Browser;
    let page: Page;
    let newOnly: ServedGvr;
    let removed: ServedGvr;
    const logs = new Map<string, string>();
    const problems: string[] = [];

    beforeAll(async () => {
      execFileSync(
        process.execPath,
        [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'renderer/vite.config.ts', '--logLevel', 'warn'],
        { cwd: repoRoot, stdio: 'pipe', env: { ...process.env, NODE_ENV: 'production' } },
      );
      dir = mkdtempSync(join(tmpdir(), 'kube-cluster-ui-'));
      const policyFile = join(dir, 'audit-policy.yaml');
      writeFileSync(policyFile, POLICY);
      for (const host of ['kube-old', 'kube-new']) logs.set(host, join(dir, `${host}-audit.log`));
      const audit = (host: string) => ({ policyFile, logFile: logs.get(host) as string });
      cp = await startControlPlane({
        servers: [
          {
            host: 'kube-old',
            release: kubeBinaries?.older ?? '',
            mvp: 'no-peer-ca',
            runtimeConfig: 'api/beta=true',
            audit: audit('kube-old'),
          },
          {
            host: 'kube-new',
            release: kubeBinaries?.newer ?? '',
            mvp: 'no-peer-ca',
            runtimeConfig: 'api/beta=true',
            audit: audit('kube-new'),
          },
        ],
      });
      const names = await cp.leaseNames();
      const [oldServes, newServes] = [await servedGvrs(cp, 'kube-old'), await servedGvrs(cp, 'kube-new')];
      const listable = (a: Map<string, ServedGvr>, b: Map<string, ServedGvr>) =>
        [...a.values()].filter((g) => !b.has(g.key) && g.verbs.includes('list')).sort((x, y) => x.key.localeCompare(y.key));
      const [onlyNew, onlyOld] = [listable(newServes, oldServes), listable(oldServes, newServes)];
      if (!onlyNew[0] || !onlyOld[0]) throw new Error('the two releases serve the same listable GVRs: nothing to test');
      [newOnly, removed] = [onlyNew[0], onlyOld[0]];
      console.log(`only the newer serves ${newOnly.key}; only the older serves ${removed.key}`);

      const found = await serversFromKubeconfig({ kubeconfig: cp.kubeconfig('kube-old'), env: {} });
      core = createCore({
        servers: found.servers,
        listen: { port: 0 },
        probeIntervalMs: 500,
        auditLogs: ['kube-old', 'kube-new'].map((h) => ({ server: names.get(h) as string, file: logs.get(h) as string })),
      });
      await core.start();
      // Judged against both servers' discovery: the false 404s are known as such only once both are read.
      await waitFor(
        "both servers' discovery in the route table",
        async () =>
          core.routes.table.serversFor({ group: newOnly.group, version: newOnly.version, resource: newOnly.resource }).length > 0 &&
          core.routes.table.serversFor({ group: removed.group, version: removed.version, resource: removed.resource }).length > 0
            ? true
            : undefined,
        60_000,
      );
      ui = await startUiHost({ core });

      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console: ${m.text()}`);
      });
      await page.goto(ui.url);
      // The page is open before the traffic: its chart and tally take the false 404s in as they come.
      await page.getByRole('tab', { name: 'Live routing' }).click();
      await page.getByRole('group', { name: 'Source' }).waitFor({ timeout: 30_000 });

      // Straight to the servers, not through the port.
      for (let i = 0; i < FALSE_404S['cert-rotator']; i++)
        expect((await cp.call('kube-old', newOnly.path, { headers: { 'user-agent': CERT_ROTATOR } })).status).toBe(404);
      for (let i = 0; i < 2; i++)
        expect((await cp.call('kube-new', newOnly.path, { headers: { 'user-agent': CERT_ROTATOR } })).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await cp.call('kube-old', removed.path, { headers: { 'user-agent': IPAM } })).status).toBe(200);
      expect((await cp.call('kube-new', removed.path, { headers: { 'user-agent': IPAM } })).status).toBe(404);
      const cache = join(dir, 'kubectl-cache');
      for (let i = 0; i < FALSE_404S.kubectl; i++) {
        const r = await kubectl({ kubeconfig: cp.kubeconfig('kube-old') }, cache)(['get', '--raw', newOnly.path]);
        expect(r.stderr).toMatch(/NotFound|not found/i);
      }
      // Every one of them in the logs, and read by the core.
      const expected = Object.values(FALSE_404S).reduce((a, b) => a + b, 0);
      await waitFor(
        `the core's cluster source counts ${expected} false 404s`,
        async () => ((core.cluster?.totals()['false-404'] ?? 0) >= expected ? true : undefined),
        60_000,
      );
    }, 300_000);

    afterAll(async () => {
      await browser?.close();
      await ui?.close();
      await core?.close(0);
      await cp?.close();
      if (dir && !process.env.PEERSCOPE_KUBE_KEEP) rmSync(dir, { recursive: true, force: true });
    });

    it('Live routing, cluster source: the false 404s each client got, from the servers the requests went to', async () => {
      await page.getByRole('tab', { name: 'Live routing' }).click();
      const source = page.getByRole('group', { name: 'Source' });
      await source.waitFor({ timeout: 30_000 });
      await source.getByRole('button', { name: 'Cluster' }).click();
      expect(await source.getByRole('button', { name: 'Cluster' }).getAttribute('aria-pressed')).toBe('true');
      const table = page.getByRole('table', { name: 'False 404s by client' });
      const counts = async () => {
        const rows = await table
          .locator('tbody tr')
          .evaluateAll((trs) =>
            trs.map((tr) => [
              tr.getAttribute('data-client'),
              tr.querySelectorAll('td')[0]?.textContent,
              tr.querySelector('td.num')?.textContent,
            ]),
          );
        return Object.fromEntries(rows.map(([client, server, n]) => [`${client} @ ${server}`, Number(n)]));
      };
      await expect
        .poll(counts, { timeout: 60_000 })
        .toEqual({ 'cert-rotator @ kube-old': 5, 'kubectl @ kube-old': 3, 'ipam-controller @ kube-new': 1 });
      const rows = await table.locator('tbody tr').allTextContents();
      expect(rows.find((r) => r.startsWith('cert-rotator'))).toContain(`${newOnly.group}/${newOnly.version} ${newOnly.resource}`);
      expect(rows.find((r) => r.startsWith('ipam-controller'))).toContain(`${removed.group}/${removed.version} ${removed.resource}`);
      // The stream shows them as an outcome of their own: only the 404s of either kind in the table (the
      // servers' own requests to themselves outnumber the clients' by far), as the operator would look.
      const filter = page.getByRole('group', { name: 'Show outcomes' });
      expect(
        Number(
          await filter
            .getByRole('button', { name: /^false 404/ })
            .locator('.count')
            .textContent(),
        ),
      ).toBeGreaterThanOrEqual(1);
      for (const hide of [/^local/, /^non-resource/]) await filter.getByRole('button', { name: hide }).click();
      await page.locator('.stream-row[data-outcome="false-404"]').first().waitFor({ timeout: 30_000 });
      // And the rate chart, as an outcome of its own.
      await page.locator('.rate-area[data-outcome="false-404"]').first().waitFor({ timeout: 30_000 });
      mkdirSync(join(repoRoot, 'test-results'), { recursive: true });
      const shot = join(repoRoot, 'test-results', 'kube-cluster-live-routing.png');
      await page.screenshot({ path: shot, fullPage: true });
      console.log(`screenshot: ${shot}`);
      for (const show of [/^local/, /^non-resource/]) await filter.getByRole('button', { name: show }).click();
    });

    it("Upgrade impact lists the cluster's clients from the audit logs, each finding saying so", async () => {
      await page.getByRole('tab', { name: 'Upgrade impact' }).click();
      const rows = page.locator('.impact-table tbody tr[data-source="cluster-audit"]');
      await rows.first().waitFor({ timeout: 30_000 });
      const found = await rows.evaluateAll((trs) =>
        trs.map(
          (tr) =>
            `${tr.getAttribute('data-impact')} ${tr.querySelector('th')?.firstChild?.textContent} ${tr.querySelector('code')?.textContent}`,
        ),
      );
      // The newer-only GVR is served by one of the two servers: skewed, whatever the target release.
      expect(found).toContain(`skewed cert-rotator ${newOnly.group}/${newOnly.version} ${newOnly.resource}`);
      // The older-only GVR: skewed, or removed when the target release does not serve it either.
      expect(
        found.some((f) => new RegExp(`^(skewed|removed) ipam-controller ${removed.group}/${removed.version} ${removed.resource}$`).test(f)),
        found.join('; '),
      ).toBe(true);
      // kubectl's requests came through no port: the report has them from the audit log only.
      expect(found.some((f) => f.startsWith('skewed kubectl '))).toBe(true);
      expect(await page.locator('.impact').textContent()).toMatch(/in the cluster's audit logs/);
      const shot = join(repoRoot, 'test-results', 'kube-cluster-upgrade-impact.png');
      await page.screenshot({ path: shot, fullPage: true });
      console.log(`screenshot: ${shot}`);
    });

    it('ran with no page error', () => {
      expect(problems).toEqual([]);
    });
  },
);
