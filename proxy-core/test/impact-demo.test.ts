// The upgrade-impact report on `peerscope demo --no-rollout` (three servers at v1.36-dev, traffic
// through the port), made by the built CLI against v1.37-dev: it must name exactly the clients and
// GVRs the upgrade affects among what the traffic generator really sent — the expectations come
// from the generator's own record of its requests and its client definitions, and the catalog.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { impactReportSchema, type ImpactReport } from '../contract/impact.js';
import { compareVersionPriority } from '../contract/version-priority.js';
import { startDemoSession, type DemoSession } from '../hosts/session/demo.js';
import { catalogEntries, loadRelease } from '../engine/releases/index.js';
import { legacyOperatorGvr, TRAFFIC_CLIENTS, type TrafficResult } from '../sim/traffic/index.js';

const run = promisify(execFile);
const VERB_OF: Record<TrafficResult['kind'], string> = {
  list: 'list',
  'ns-sweep': 'list',
  watch: 'watch',
  get: 'get',
  create: 'create',
  delete: 'delete',
};

function gvrsOf(release: string): Set<string> {
  return new Set([...catalogEntries(loadRelease(release))].map((e) => `${e.group}/${e.version}/${e.resource.name}`));
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the impact report of the demo (v1.36-dev → v1.37-dev)', () => {
  let session: DemoSession;
  const results: TrafficResult[] = [];
  let report: ImpactReport;
  let json: unknown;
  let text: string;
  let snapshotText: string;
  const dir = mkdtempSync(join(tmpdir(), 'peerscope-impact-'));

  beforeAll(async () => {
    session = await startDemoSession({ listen: { host: '127.0.0.1', port: 0 }, trafficRps: 60, onTrafficResult: (r) => results.push(r) });
    await until(
      () => results.length >= 250 && results.some((r) => r.userAgent === TRAFFIC_CLIENTS.legacyOperator.userAgent && r.kind === 'list'),
      25_000,
    );
    // Every request ends (watches are cut) before the report is read, so the port has counted each.
    await session.traffic.stop();
    await new Promise((r) => setTimeout(r, 300));
    const out = await run(
      process.execPath,
      ['bin/peerscope', 'report', '--port-url', session.address.url, '--to', 'v1.37-dev', '--output', 'json'],
      { cwd: repoRoot },
    );
    json = JSON.parse(out.stdout);
    report = impactReportSchema.parse(json);
    text = (
      await run(process.execPath, ['bin/peerscope', 'report', '--port-url', session.address.url, '--to', 'v1.37-dev'], { cwd: repoRoot })
    ).stdout;
    snapshotText = await (await fetch(`${session.address.url}/.peerscope/snapshot`)).text();
  }, 60_000);
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await session?.close();
  });

  /** A newer version of the same group and resource the target serves (issue 45: the client will have to move). */
  const olderThanNewest = (gvr: string, target: ReadonlySet<string>) => {
    const [group, version, resource] = gvr.split('/') as [string, string, string];
    return [...target].some((t) => {
      const [g, v, r] = t.split('/') as [string, string, string];
      return g === group && r === resource && compareVersionPriority(v, version) < 0;
    });
  };

  it('names every client × GVR the upgrade affects, and nothing else', () => {
    const now = gvrsOf('v1.36-dev');
    const target = gvrsOf('v1.37-dev');
    const expected = new Map<string, Map<string, number>>();
    for (const r of results) {
      const impact =
        now.has(r.gvr) && !target.has(r.gvr)
          ? 'removed'
          : now.has(r.gvr) && olderThanNewest(r.gvr, target)
            ? 'superseded'
            : !now.has(r.gvr) && target.has(r.gvr)
              ? 'target-only'
              : undefined;
      if (!impact) continue;
      const key = `${impact} ${r.userAgent} ${r.gvr}`;
      const verbs = expected.get(key) ?? new Map<string, number>();
      verbs.set(VERB_OF[r.kind], (verbs.get(VERB_OF[r.kind]) ?? 0) + 1);
      expected.set(key, verbs);
    }
    // The port's findings are exactly what went through the port; the report has the cluster's own clients too
    // (the same clients straight to the servers, from their audit logs), each finding naming its source.
    expect(report.sources).toEqual(expect.arrayContaining(['port', 'cluster-audit']));
    expect(report.findings.some((f) => f.source === 'cluster-audit')).toBe(true);
    const portFindings = report.findings.filter((f) => f.source === 'port');
    const found = new Map(portFindings.map((f) => [`${f.impact} ${f.client.userAgent} ${f.group}/${f.version}/${f.resource}`, f]));
    expect([...found.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, verbs] of expected) {
      const f = found.get(key)!;
      expect(f.verbs.map((v) => v.verb).sort(), key).toEqual([...verbs.keys()].sort());
      // The port may also have counted a request the generator gave up at its stop; never fewer.
      for (const v of f.verbs) expect(v.count, `${key} ${v.verb}`).toBeGreaterThanOrEqual(verbs.get(v.verb)!);
      expect(f.client.identity).toBe('sim-admin');
    }
    expect(report.findings.some((f) => f.impact === 'removed')).toBe(true);
    expect(report.findings.some((f) => f.impact === 'target-only')).toBe(true);
    expect(report.findings.some((f) => f.impact === 'superseded')).toBe(true);
  });

  it('finds the generator’s legacy operator, which still watches a version v1.37 removed', () => {
    const gvr = legacyOperatorGvr([loadRelease('v1.36-dev'), loadRelease('v1.37-dev')])!;
    const [group, version, resource] = gvr.split('/');
    const kind = [...catalogEntries(loadRelease('v1.36-dev'))].find((e) => `${e.group}/${e.version}/${e.resource.name}` === gvr)!.resource
      .kind;
    // The older servers answer that version with kube-apiserver's deprecation warning (sim/apiserver/deprecations.ts).
    const warning = `${group}/${version} ${kind} is deprecated, unavailable in v1.37+`;
    const warned = `; the apiserver already warns "${warning.replace(/[.+]/g, '\\$&')}"`;
    // The port's finding: the same client's calls straight to the servers (source cluster-audit) also carry their deprecation mark.
    const legacy = report.findings.find((f) => f.source === 'port' && f.client.userAgent === TRAFFIC_CLIENTS.legacyOperator.userAgent);
    expect(legacy).toMatchObject({
      impact: 'removed',
      group,
      version,
      resource,
      client: { name: 'legacy-operator (legacy-controller)' },
      evidence: { servedNowBy: ['sim-1', 'sim-2', 'sim-3'], servedByTarget: false, warnings: [warning] },
    });
    expect(legacy!.message).toMatch(
      new RegExp(
        `^legacy-operator \\(legacy-controller\\) lists ${group}/${version} ${resource} .*: not served by v1\\.37-dev → 404 after the upgrade${warned}$`,
      ),
    );
    // The text was made a moment later (its rates may differ): the same finding, in the same words.
    expect(text).toMatch(
      new RegExp(
        `^  legacy-operator \\(legacy-controller\\) lists ${group}/${version} ${resource} .*: not served by v1\\.37-dev → 404 after the upgrade${warned}$`,
        'm',
      ),
    );
    expect(text).toMatch(/^Upgrade impact: v1\.36-dev \(sim-1, sim-2, sim-3\) → v1\.37-dev/);
  });

  it('reads the same report offline from a snapshot, and says why an older snapshot has none', async () => {
    const file = join(dir, 'snapshot.json');
    writeFileSync(file, snapshotText);
    const offline = impactReportSchema.parse(
      JSON.parse(
        (
          await run(process.execPath, ['bin/peerscope', 'report', '--snapshot', file, '--to', 'v1.37-dev', '--output', 'json'], {
            cwd: repoRoot,
          })
        ).stdout,
      ),
    );
    const key = (r: ImpactReport) =>
      r.findings.map((f) => `${f.source ?? 'port'} ${f.impact} ${f.client.userAgent} ${f.group}/${f.version}/${f.resource}`).sort();
    // The port's findings are the report read before (its traffic stopped there); the cluster's clients
    // went on meanwhile, so all of them are compared with what the snapshot recorded when it was taken.
    const portOnly = (keys: string[]) => keys.filter((k) => k.startsWith('port '));
    expect(portOnly(key(offline))).toEqual(portOnly(key(report)));
    const recorded = impactReportSchema.parse((JSON.parse(snapshotText) as { impact: unknown }).impact);
    const recordedTo37 = impactReportSchema.parse(
      JSON.parse(
        (
          await run(process.execPath, ['bin/peerscope', 'report', '--snapshot', file, '--output', 'json'], {
            cwd: repoRoot,
          })
        ).stdout,
      ),
    );
    expect(recorded.target.release).toBe('v1.37-dev');
    expect(recordedTo37.findings).toEqual(recorded.findings);
    expect(offline.sources).toEqual(['port', 'cluster-audit']);
    const markdown = (
      await run(process.execPath, ['bin/peerscope', 'report', '--snapshot', file, '--output', 'markdown'], { cwd: repoRoot })
    ).stdout;
    expect(markdown).toMatch(/^## Upgrade impact: v1\.36-dev \(sim-1, sim-2, sim-3\) → v1\.37-dev/);
    expect(markdown).toContain('| legacy-operator (legacy-controller) | `sim-admin` |');
    // A snapshot of an earlier Peerscope (no usage recorded) still reads, but holds no report.
    const old = JSON.parse(snapshotText) as Record<string, unknown>;
    delete old.usage;
    delete old.impact;
    const oldFile = join(dir, 'old.json');
    writeFileSync(oldFile, JSON.stringify(old));
    const refused = await run(process.execPath, ['bin/peerscope', 'report', '--snapshot', oldFile, '--to', 'v1.37-dev'], {
      cwd: repoRoot,
    }).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(refused?.code).toBe(2);
    expect(refused?.stderr).toBe(
      `peerscope: ${oldFile}: this snapshot was taken by a Peerscope that did not record client usage yet: no report can be made from it; see 'peerscope report --help'\n`,
    );
    const shown = await run(process.execPath, ['bin/peerscope', 'snapshot', 'show', oldFile], { cwd: repoRoot });
    expect(shown.stdout).toMatch(/^sim-1 +(\S+ +)?v1\.36-dev +/m);
  });

  it('validates against docs/impact-report.schema.json', () => {
    const schema = JSON.parse(readFileSync(join(repoRoot, 'docs/impact-report.schema.json'), 'utf8')) as object;
    const validate = new Ajv2020.default({ strict: false }).compile(schema);
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...(json as object), findings: [{ impact: 'gone' }] })).toBe(false);
  });
});
