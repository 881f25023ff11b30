// The desktop app's "Open audit log…": a log of the past read once (not followed) into the cluster
// source, judged against the servers' discovery, with a progress figure that ends at the file's size,
// and a read that can be cancelled.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreService } from '../hosts/service/service.js';
import { createCore } from '../engine/core.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';
import { auditLog, PCR, PCR_PATH, PODS, PODS_PATH } from './audit-events.js';

const FALSE_404S = 1_500;
const LOCAL = 1_000;

describe('audit logs read once, with progress', () => {
  let dir: string;
  let sim: SimCluster;
  let file: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-read-once-'));
    // a at v1.36-dev, b at v1.37-dev: PodCertificateRequests only b serves, so a's 404s for them are false.
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['a', 'b'] });
    file = join(dir, 'a-audit.log');
    writeFileSync(
      file,
      auditLog([
        ...Array.from({ length: FALSE_404S }, () => ({
          verb: 'list',
          path: PCR_PATH,
          ref: PCR,
          code: 404,
          userAgent: 'cert-rotator/v0.3.1',
        })),
        ...Array.from({ length: LOCAL }, () => ({ verb: 'list', path: PODS_PATH, ref: PODS, code: 200 })),
      ]),
    );
  }, 60_000);

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the whole file into the cluster source, its progress ending at the file size, then says done', async () => {
    const core = createCore({ servers: sim.serverConfigs(), listen: { port: 0 }, auditLogs: [{ server: 'a', file }], auditFollow: false });
    const service = createCoreService(core);
    try {
      await core.start();
      await expect.poll(() => core.auditRead()?.state, { timeout: 30_000 }).toBe('done');
      const size = statSync(file).size;
      expect(core.auditRead()).toEqual({
        files: [{ server: 'a', file }],
        follow: false,
        state: 'done',
        bytesRead: size,
        bytesTotal: size,
        lines: 2 * (FALSE_404S + LOCAL),
        requests: FALSE_404S + LOCAL,
      });
      const overview = await service.getOverview();
      expect(overview.cluster?.read?.state).toBe('done');
      expect(overview.cluster?.totals['false-404']).toBe(FALSE_404S);
      expect(overview.cluster?.totals.local).toBe(LOCAL);
      // The cluster's client is in the upgrade-impact report, from the audit log.
      const report = await service.getImpactReport();
      expect(report.findings.find((f) => f.source === 'cluster-audit' && f.client.name === 'cert-rotator')).toMatchObject({
        resource: 'podcertificaterequests',
        impact: 'skewed',
      });
    } finally {
      service.close();
      await core.close(0);
    }
  });

  it('a cancelled read stops and says so; what was read still counts', async () => {
    const core = createCore({ servers: sim.serverConfigs(), listen: { port: 0 }, auditLogs: [{ server: 'a', file }], auditFollow: false });
    const service = createCoreService(core);
    try {
      // Cancelled before it began: nothing is read, deterministically.
      const answered = await service.cancelAuditRead();
      expect(answered.cluster?.read?.state).toBe('cancelled');
      await core.start();
      await new Promise((r) => setTimeout(r, 200));
      expect(core.auditRead()).toMatchObject({ state: 'cancelled', requests: 0 });
      expect(core.cluster?.totals()['false-404']).toBe(0);
    } finally {
      service.close();
      await core.close(0);
    }
  });

  it('a followed log is a read under way until it has caught up with what the file held, then followed', async () => {
    const core = createCore({ servers: sim.serverConfigs(), listen: { port: 0 }, auditLogs: [{ server: 'a', file }] });
    try {
      await core.start();
      await expect.poll(() => core.cluster?.totals()['false-404'], { timeout: 30_000 }).toBe(FALSE_404S);
      await expect.poll(() => core.auditRead()?.state, { timeout: 10_000 }).toBe('following');
      expect(core.auditRead()).toMatchObject({ follow: true, bytesTotal: statSync(file).size, bytesRead: statSync(file).size });
    } finally {
      await core.close(0);
    }
  });
});
