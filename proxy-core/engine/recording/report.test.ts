// The rollout report of a recorded rollout (written by the real writer to a file, read by the real
// reader): the servers' timeline with the steps, every kind of incident, the false 404s per minute,
// the reroutes, the clients that break at the target release (judged by the impact report's code);
// its JSON valid against docs/recording-report.schema.json (ajv), which is generated from the zod schema.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IPAM_AGENT, LEGACY_AGENT, REMOVED_GVR, ROLLOUT_T0 as T0, writeRecordedRollout } from '../../test/recorded-rollout.js';
import { RecordingReader } from './reader.js';
import { buildRecordingReport } from './report.js';
import { reportHtml } from './report-html.js';
import { recordingReportJsonSchemaText } from './report-json-schema.js';
import { reportMarkdown } from './report-text.js';

const MIN = 60_000;
const dir = mkdtempSync(join(tmpdir(), 'recording-report-'));
const file = join(dir, 'rollout.recording.sqlite');
let reader: RecordingReader;
beforeAll(() => {
  writeRecordedRollout(file);
  reader = RecordingReader.open(file);
});
afterAll(() => {
  reader?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the rollout report of a recording', () => {
  it('has each server’s release and state over time, and the rollout steps', () => {
    const r = buildRecordingReport(reader);
    const cp1 = r.servers.find((s) => s.server === 'cp-1')!;
    expect(cp1.changes.filter((c) => c.kind === 'release').map((c) => [c.at - T0, c.value])).toEqual([
      [0, 'v1.36.0'],
      [MIN + 40_000, 'v1.37.0'],
    ]);
    expect(r.steps.map((s) => [s.at - T0, s.subject, s.value])).toEqual([
      [MIN, 'cp-1', 'upgrade cp-1: v1.36.0 → v1.37.0'],
      [4 * MIN, 'cp-2', 'upgrade cp-2: v1.36.0 → v1.37.0'],
      [7 * MIN, 'cp-3', 'upgrade cp-3: v1.36.0 → v1.37.0'],
      [9 * MIN, '', 'every server runs v1.37.0'],
    ]);
  });

  it('lists every kind of incident with its span', () => {
    const r = buildRecordingReport(reader);
    const shown = r.incidents.map((i) => [
      i.server,
      i.kind,
      (i.from - T0) / 1000,
      i.to === null ? null : (i.to - T0) / 1000,
      i.count ?? i.detail,
    ]);
    expect(shown).toEqual([
      ['cp-1', 'not-ready', 65, 110, undefined],
      ['cp-2', 'discovery-stale', 120, 210, undefined],
      ['cp-3', 'registration-missing', 240, 360, 'networking.k8s.io/v1beta1'],
      ['cp-2', 'not-ready', 245, 290, undefined],
      ['cp-3', 'unreachable', 300, 390, undefined],
      ['cp-3', 'peer-503', 300, 360, 4],
      ['cp-3', 'not-ready', 425, 470, undefined],
    ]);
  });

  it('counts false 404s per client × server × GVR per minute, and what the port rerouted', () => {
    const r = buildRecordingReport(reader);
    expect(r.false404s.map((f) => [(f.minute - T0) / MIN, f.client, f.user, f.server, f.gvr, f.count])).toEqual(
      [3, 4, 5, 6].map((m) => [m, LEGACY_AGENT, 'system:serviceaccount:ops:legacy', 'cp-1', 'core/v1/pods', m]),
    );
    expect(r.rerouted).toEqual([{ from: 'cp-1', to: 'cp-2', gvr: REMOVED_GVR, count: 9 }]);
    const minute5 = r.outcomesPerMinute.filter((m) => m.minute === T0 + 5 * MIN);
    expect(minute5).toEqual([
      { minute: T0 + 5 * MIN, source: 'audit-log', outcomes: { local: 10, 'false-404': 5 } },
      { minute: T0 + 5 * MIN, source: 'port', outcomes: { local: 20, unavailable: 4 } },
    ]);
  });

  it('names the clients that break at the target release: by default the newest recorded, or --to-release', () => {
    const r = buildRecordingReport(reader);
    expect(r.target).toMatchObject({ release: 'v1.37-dev', asked: 'v1.37.0' });
    expect(r.breaking.map((b) => [b.client.userAgent, b.source, b.gvr, b.requests])).toEqual(
      [
        [IPAM_AGENT, 'port', REMOVED_GVR, 5],
        ['kubectl/v1.36.0', 'port', REMOVED_GVR, 9],
      ].sort((a, b) => (b[3] as number) - (a[3] as number)),
    );
    // Against the release the servers started on, nothing breaks.
    expect(buildRecordingReport(reader, {}, { toRelease: 'v1.36' }).breaking).toEqual([]);
    expect(() => buildRecordingReport(reader, {}, { toRelease: 'v9.9' })).toThrow('--to-release: unknown release "v9.9"');
  });

  it('reports a window: the state as it opened, and only what happened in it', () => {
    const r = buildRecordingReport(reader, { from: T0 + 5 * MIN, to: T0 + 6 * MIN });
    const cp3 = r.servers.find((s) => s.server === 'cp-3')!;
    expect(cp3.changes.map((c) => [c.kind, (c.at - T0) / 1000, c.value])).toEqual([
      ['health', 300, 'unreachable'],
      ['release', 300, 'v1.36.0'],
      ['discovery-state', 300, 'ok'],
      ['registration', 300, 'networking.k8s.io/v1beta1'],
    ]);
    expect(r.incidents.map((i) => [i.server, i.kind, i.to])).toEqual([
      ['cp-3', 'unreachable', null],
      ['cp-3', 'registration-missing', null],
      ['cp-3', 'peer-503', T0 + 6 * MIN],
    ]);
  });

  it('prints JSON valid against docs/recording-report.schema.json, which is generated from the zod schema', () => {
    const committed = readFileSync(new URL('../../../docs/recording-report.schema.json', import.meta.url), 'utf8');
    expect(committed, 'run npm run schema:snapshot after changing contract/recording-report.ts').toBe(recordingReportJsonSchemaText());
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(committed) as object);
    const json = JSON.parse(JSON.stringify(buildRecordingReport(reader))) as unknown;
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
    // The schema does refuse what is not a report.
    expect(validate({ ...(json as object), incidents: [{ server: 'cp-1', kind: 'on-fire', from: 0, to: null }] })).toBe(false);
  });

  it('renders Markdown and a self-contained HTML page with its charts', () => {
    const r = buildRecordingReport(reader);
    const md = reportMarkdown(r);
    expect(md).toContain('| 2026-11-27 14:01:00Z | cp-1 | step | upgrade cp-1: v1.36.0 → v1.37.0 |');
    expect(md).toContain('| cp-3 | registration-missing | 2026-11-27 14:04:00Z | 2026-11-27 14:06:00Z | networking.k8s.io/v1beta1 |');
    expect(md).toContain(
      "2 client(s) seen in the window call APIs the target release does not serve: they get 404s after the upgrade to v1.37.0 (v1.37.0 judged against the catalog's v1.37-dev, its minor's release).",
    );
    const html = reportHtml(r);
    expect(html.match(/<svg /g)).toHaveLength(4);
    expect(html).not.toMatch(/<script|\son[a-z]+=|https?:\/\/(?!www\.w3\.org\/2000\/svg)|style="/i);
    expect(html).toContain("Content-Security-Policy\" content=\"default-src 'none'; style-src 'sha256-");
  });
});
