// The servers' display names in a recording: the feed records each server's host name as the server
// set first shows it and each time it changes (a server joining with the same host name tells the two
// apart), once per change; the reader gives them by moment, the state at a moment carries them, and
// the report names the servers by them. A file written before display names were recorded still
// reads, every server named by its identity. Real parts: the ServerSet, feed, writer and reader on a file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeRecordedRollout } from '../../test/recorded-rollout.js';
import { ServerSet } from '../cluster/server-set.js';
import { buildRouteTable } from '../routing/route-table.js';
import { feedRecording } from './feed.js';
import { RecordingReader } from './reader.js';
import { buildRecordingReport } from './report.js';
import { reportHtml } from './report-html.js';
import { recordingSummary, reportMarkdown } from './report-text.js';
import { stateAt } from './state-at.js';
import { RecordingWriter } from './writer.js';

const dir = mkdtempSync(join(tmpdir(), 'display-name-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FIRST = { name: 'apiserver-aaaaaaaa1', url: 'https://127.0.0.1:1', hostname: 'cp-1', source: 'lease' as const };
const SECOND = { name: 'apiserver-bbbbbbbb2', url: 'https://127.0.0.1:2', hostname: 'cp-1', source: 'lease' as const };

describe('display names in a recording', () => {
  it('are recorded as the server set shows them, once per change, and read back by moment', async () => {
    const file = join(dir, 'names.recording.sqlite');
    const servers = new ServerSet([FIRST], { probeIntervalMs: 60_000, discoveryIntervalMs: 60_000 });
    const writer = RecordingWriter.create(file, { host: 'test' });
    const routeTable = () => buildRouteTable(servers.names().map((name) => ({ name, gvrs: servers.discovery(name)?.gvrs })));
    const feed = feedRecording(writer, { telemetry: { subscribe: () => () => undefined }, servers, routeTable });
    let joinedAt = 0;
    try {
      await new Promise((r) => setTimeout(r, 20));
      joinedAt = Date.now();
      servers.sync({ servers: [FIRST, SECOND], gone: new Map(), warnings: [] });
    } finally {
      feed.close();
      await servers.close();
    }
    const reader = RecordingReader.open(file);
    try {
      const names = reader.changes({}, ['display-name']).map((c) => [c.subject, c.value]);
      expect(names).toEqual([
        [FIRST.name, 'cp-1'],
        [SECOND.name, 'cp-1 (bbbbbb)'],
        [FIRST.name, 'cp-1 (aaaaaa)'],
      ]);
      expect(reader.displayNames(joinedAt - 1)).toEqual(new Map([[FIRST.name, 'cp-1']]));
      expect(reader.displayNames()).toEqual(
        new Map([
          [FIRST.name, 'cp-1 (aaaaaa)'],
          [SECOND.name, 'cp-1 (bbbbbb)'],
        ]),
      );
      // The state at a moment carries the name it had then, over what the live session knows now.
      const live = () => ({ url: 'https://elsewhere', source: 'lease' as const, displayName: 'renamed' });
      expect(stateAt(reader, joinedAt - 1, live).servers.map((s) => [s.name, s.displayName])).toEqual([[FIRST.name, 'cp-1']]);

      const report = buildRecordingReport(reader);
      expect(report.servers.map((s) => [s.server, s.displayName])).toEqual([
        [FIRST.name, 'cp-1 (aaaaaa)'],
        [SECOND.name, 'cp-1 (bbbbbb)'],
      ]);
      expect(recordingSummary(report)).toContain(`servers:\n  "cp-1 (aaaaaa)" (${FIRST.name})  (release not known)\n`);
      expect(reportMarkdown(report)).toContain(`| "cp-1 (bbbbbb)" (${SECOND.name}) | membership |`);
      const html = reportHtml(report);
      // The lane reads the host name; its tooltip has the identity too.
      expect(html).toMatch(
        /<title>&quot;cp-1 \(aaaaaa\)&quot; \(apiserver-aaaaaaaa1\)<\/title><text [^>]*class="label">cp-1 \(aaaaaa\)<\/text>/,
      );
      expect(html).toContain(`<td>&quot;cp-1 (bbbbbb)&quot; (${SECOND.name})</td><td>membership</td>`);
    } finally {
      reader.close();
    }
  });

  it('a file without them still reads: the servers are named by their identities', () => {
    const file = join(dir, 'older.recording.sqlite');
    writeRecordedRollout(file);
    const reader = RecordingReader.open(file);
    try {
      expect(reader.displayNames()).toEqual(new Map());
      const report = buildRecordingReport(reader);
      expect(report.servers.map((s) => s.displayName)).toEqual([undefined, undefined, undefined]);
      expect(recordingSummary(report)).toMatch(/^servers:\n {2}cp-1 {2}v1\.36/m);
      expect(reportMarkdown(report)).toContain('| cp-1 | cp-2 |');
      const known = (name: string) => ({ url: `https://${name}`, source: 'flag' as const, displayName: `host-of-${name}` });
      expect(stateAt(reader, report.recording.endedAt, known).servers[0]?.displayName).toBe('host-of-cp-1');
    } finally {
      reader.close();
    }
  });
});
