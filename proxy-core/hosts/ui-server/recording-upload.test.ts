// A recording file uploaded to the real UI server (HTTP on 127.0.0.1, port 0): copied into the
// recordings folder and opened, every call then answered from it; a file that is not a recording is
// refused naming the file the operator picked and the fault, and nothing is kept; no token, no upload.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDING_UPLOAD_PATH, recordingsSchema } from '../../contract/recordings.js';
import { overviewSchema } from '../../contract/client.js';
import { RecordingWriter } from '../../engine/recording/writer.js';
import { createRecordingsLibrary, type RecordingsLibrary } from '../session/recordings-library.js';
import { createSwitchingService } from '../session/switching-service.js';
import { startUiServer, type UiServer } from './server.js';

const root = mkdtempSync(join(tmpdir(), 'recording-upload-'));
const folder = join(root, 'recordings');
const T0 = Date.UTC(2026, 10, 28, 14, 0);
let library: RecordingsLibrary;
let server: UiServer;

/** A colleague's recording, written by the real writer: two servers, one upgraded. */
function colleagueRecording(): string {
  const file = join(root, 'rollout-from-alice.recording.sqlite');
  const w = RecordingWriter.create(file, { startedAt: T0, host: 'test' });
  for (const name of ['cp-1', 'cp-2']) {
    w.change('health', name, 'ready', T0 + 100);
    w.change('release', name, 'v1.36.0', T0 + 100);
  }
  w.change('release', 'cp-1', 'v1.37.0', T0 + 60_000);
  w.close();
  return file;
}

const upload = (body: Buffer | string, name: string, token = server.token) =>
  fetch(`${server.origin}${RECORDING_UPLOAD_PATH}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/octet-stream',
      'x-peerscope-file-name': encodeURIComponent(name),
    },
    body,
  });
const rpc = async (method: string, args: unknown = {}) =>
  (
    await fetch(`${server.origin}/api/rpc/${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(args),
    })
  ).json();

beforeAll(async () => {
  library = createRecordingsLibrary({ service: createSwitchingService(), folder });
  server = await startUiServer({
    service: library.service,
    rendererDir: root,
    recordings: { importBytes: library.importBytes, openRecording: library.calls.openRecording, maxBytes: 1024 * 1024 },
  });
});
afterAll(async () => {
  await server?.close();
  library?.service.close();
  rmSync(root, { recursive: true, force: true });
});

describe('uploading a recording to the UI server', () => {
  it('refuses a file that is not a recording, naming it and the fault, and keeps nothing', async () => {
    const res = await upload('name,value\nx,1\n', 'export (1).csv');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        code: 'PEERSCOPE_ERR_INPUT',
        message: 'export (1).csv: not a Peerscope recording: not an SQLite database (its first bytes are not "SQLite format 3")',
      },
    });
    expect(readdirSync(folder)).toEqual([]);
  });

  it('refuses an upload without the token, and one over the size limit', async () => {
    expect((await upload('x', 'a.recording.sqlite', 'wrong')).status).toBe(401);
    const big = await upload(Buffer.alloc(1024 * 1024 + 1), 'big.recording.sqlite');
    expect(big.status).toBe(413);
    expect(readdirSync(folder)).toEqual([]);
  });

  it('copies a recording into the folder and opens it: the calls answer from the file', async () => {
    const source = colleagueRecording();
    const res = await upload(readFileSync(source), 'rollout-from-alice.recording.sqlite');
    expect(res.status).toBe(200);
    const listing = recordingsSchema.parse(await res.json());
    expect(listing.recordings).toEqual([
      expect.objectContaining({
        name: 'rollout-from-alice.recording.sqlite',
        open: true,
        servers: ['cp-1', 'cp-2'],
        releases: ['v1.36.0', 'v1.37.0'],
        startedAt: T0,
        endedAt: T0 + 60_000,
      }),
    ]);
    expect(readFileSync(join(folder, 'rollout-from-alice.recording.sqlite')).equals(readFileSync(source))).toBe(true);
    const overview = overviewSchema.parse(await rpc('getOverview'));
    expect(overview.servers.map((s) => [s.name, s.gitVersion])).toEqual([
      ['cp-1', 'v1.37.0'],
      ['cp-2', 'v1.36.0'],
    ]);
    expect(await rpc('getRecordingTimeline')).toMatchObject({ ended: true, startedAt: T0 });
    expect(await rpc('setPolicy', { policy: 'random' })).toMatchObject({ error: { code: 'PEERSCOPE_ERR_READ_ONLY' } });
    // A second upload of the same name is kept beside the first, not over it.
    const again = recordingsSchema.parse(await (await upload(readFileSync(source), 'rollout-from-alice.recording.sqlite')).json());
    expect(again.recordings.map((r) => [r.name, r.open ?? false]).sort()).toEqual([
      ['rollout-from-alice-2.recording.sqlite', true],
      ['rollout-from-alice.recording.sqlite', false],
    ]);
  });
});
