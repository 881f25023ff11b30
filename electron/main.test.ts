// The built Electron main process, run under plain Node with the Electron runtime faked
// (electron/test/fake-electron-runtime.cjs): the composition in main.ts is exercised for real —
// the simulated cluster starts, the port listens, IPC answers a renderer — without Electron's binary.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { coreClientMethods } from '../proxy-core/contract/index.js';
import { startDemoSession } from '../proxy-core/hosts/index.js';

const root = join(import.meta.dirname, '..');

interface Observation {
  kind: string;
  [key: string]: unknown;
}

const userData = mkdtempSync(join(tmpdir(), 'peerscope-user-data-'));

/** The file the operator picks in the open dialog: a colleague's recording, of a real two-server demo. */
async function pickedRecording(): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'peerscope-picked-')), 'from-bob.recording.sqlite');
  const demo = await startDemoSession({ listen: { host: '127.0.0.1', port: 0 }, servers: 2, trafficRps: 10, record: { file } });
  await new Promise((r) => setTimeout(r, 1_500));
  await demo.close();
  return file;
}

async function runMain(): Promise<{ code: number | null; observations: Observation[]; stderr: string }> {
  const outdir = mkdtempSync(join(tmpdir(), 'peerscope-main-'));
  // The same bundle options as scripts/build.mjs: CommonJS, `electron` left to the runtime.
  await build({
    entryPoints: { main: join(root, 'electron/main.ts') },
    outdir,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['electron'],
    mainFields: ['module', 'main'],
    logLevel: 'error',
  });
  const child = spawn(
    process.execPath,
    ['--require', join(root, 'electron/test/fake-electron-runtime.cjs'), join(outdir, 'main.cjs'), '--reject-methods', '^DELETE$'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FAKE_ELECTRON_USER_DATA: userData, FAKE_ELECTRON_OPEN_FILE: await pickedRecording() },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  clearTimeout(timer);
  const observations = stdout
    .split('\n')
    .filter((l) => l.startsWith('fake-electron: '))
    .map((l) => JSON.parse(l.slice('fake-electron: '.length)) as Observation);
  return { code, observations, stderr };
}

describe('electron/main.ts, built and run with the Electron runtime faked', () => {
  let run: Awaited<ReturnType<typeof runMain>>;
  const one = (kind: string) => run.observations.find((o) => o.kind === kind);
  beforeAll(async () => {
    run = await runMain();
  }, 60_000);

  it('starts sandboxed, loads the app scheme in an isolated window, and quits cleanly', () => {
    expect(run.observations.map((o) => o.kind)).toContain('sandbox');
    expect(one('window')?.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    expect(one('load')?.url).toBe('peerscope://app/');
    expect(one('error-box'), run.stderr).toBeUndefined();
    expect(one('quit')).toBeDefined();
    expect(run.code).toBe(0);
  });

  it('runs the simulated cluster behind a listening port, shown in the menu', () => {
    const labels = run.observations.filter((o) => o.kind === 'menu').at(-1)?.labels as string[];
    const port = labels.find((l) => l.startsWith('Local port: '));
    expect(port).toMatch(/^Local port: http:\/\/127\.0\.0\.1:\d+$/);
    expect(labels).toEqual(
      expect.arrayContaining([
        'Open kubeconfig… / choose context',
        'Start simulated cluster',
        'Export snapshot…',
        'Import snapshot…',
        'Peer-aggregated discovery',
      ]),
    );
  });

  it('runs the port with the settings of its command line, refusing other origins, and quits at once with a watch open', () => {
    expect(one('port')).toEqual({ kind: 'port', plain: 200, foreignOrigin: 403, crossSite: 403, rejectedMethod: 403 });
    // A watch is open through the port when the app quits: it ends at once, like `peerscope serve` on SIGTERM (issue 20: within 2 s).
    console.log(`desktop quit with a watch open: ${String(one('quit')?.ms)} ms`);
    expect(one('quit')?.ms).toBeLessThan(2_000);
  });

  it('answers the renderer over IPC: one handler per contract method, foreign frames and bad arguments refused', () => {
    const renderer = one('renderer') as unknown as {
      subscribed: unknown;
      overview: { result: { servers: unknown[]; sim?: unknown } };
      foreign: unknown;
      badArgs: { error: { code: string; message: string } };
      events: string[];
      channels: string[];
    };
    expect(renderer.channels).toEqual(expect.arrayContaining(Object.keys(coreClientMethods).map((m) => `peerscope:${m}`)));
    expect(renderer.subscribed).toEqual({ result: true });
    expect(renderer.overview.result.servers).toHaveLength(3);
    expect(renderer.overview.result.sim).toBeDefined();
    expect(renderer.foreign).toEqual({ error: { code: 'PEERSCOPE_ERR_REFUSED', message: expect.stringMatching(/^refused/) } });
    expect(renderer.badArgs.error).toMatchObject({
      code: 'PEERSCOPE_ERR_INVALID_ARGUMENTS',
      message: expect.stringMatching(/^invalid arguments for setTrafficRate: rps/),
    });
    // Live traffic of the simulated cluster reaches the window as pushed events.
    expect(renderer.events).toContain('routing');
  });

  it('records the simulated cluster into the data folder, and shows a picked recording file read-only until back to live', () => {
    const seen = one('recordings') as unknown as Record<string, { result?: Record<string, unknown>; error?: { code: string } }>;
    const folder = join(userData, 'recordings');
    const listed = seen.listed!.result as { folder: string; picker: string; recordings: { name: string; writing?: boolean }[] };
    expect(listed.folder).toBe(folder);
    expect(listed.picker).toBe('dialog');
    expect(listed.recordings).toEqual([
      expect.objectContaining({ name: expect.stringMatching(/^demo-\d{8}-\d{6}\.recording\.sqlite$/), writing: true }),
    ]);
    const chosen = seen.chosen!.result as { recordings: { name: string; open?: boolean }[] };
    expect(chosen.recordings.find((r) => r.open)?.name).toBe('from-bob.recording.sqlite');
    expect((seen.recorded!.result as { servers: { name: string }[] }).servers.map((s) => s.name)).toEqual(['sim-1', 'sim-2']);
    expect(seen.readOnly!.error?.code).toBe('PEERSCOPE_ERR_READ_ONLY');
    expect((seen.liveAgain!.result as { sim?: unknown; servers: unknown[] }).sim).toBeDefined();
    expect(
      readdirSync(folder)
        .filter((n) => n.endsWith('.recording.sqlite'))
        .sort(),
    ).toEqual([expect.stringMatching(/^demo-/), 'from-bob.recording.sqlite']);
  });
});
