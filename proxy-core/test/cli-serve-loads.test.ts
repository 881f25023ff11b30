// `peerscope serve` loads only what the port uses (docs/decisions.md, "serve's memory against issue 42's
// targets"): the CLI bundle is split into chunks that each command imports when it runs, so an idle port
// never loads the recording report's charts (d3), the Parquet writer, the simulated apiserver
// (protobufjs/light, fast-json-patch), the UI server, or YAML when no kubeconfig is read. A load hook
// (module.registerHooks, given with --import) lists every module the running serve loaded; the bundle's
// source maps name the sources each loaded chunk holds.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';

const repoRoot = join(import.meta.dirname, '..', '..');
const hasHooks = typeof (nodeModule as { registerHooks?: unknown }).registerHooks === 'function';

const HOOK = `import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
// Node's own modules loaded, once serve has shut down (bin/peerscope's restart imports this again).
process.on('exit', () => appendFileSync(process.env.PEERSCOPE_LOAD_LOG, process.moduleLoadList.map((m) => 'node-internal:' + m).join('\\n') + '\\n'));
registerHooks({
  load(url, context, nextLoad) {
    appendFileSync(process.env.PEERSCOPE_LOAD_LOG, url + '\\n');
    return nextLoad(url, context);
  },
});
`;

interface Loaded {
  /** The node_modules packages loaded, by name. */
  readonly packages: Set<string>;
  /** Files of node_modules loaded, relative to node_modules. */
  readonly packageFiles: string[];
  /** The project's sources the loaded parts of dist/ hold, by their source maps (e.g. proxy-core/engine/core.ts). */
  readonly sources: Set<string>;
  /** Node's own modules loaded (process.moduleLoadList), e.g. "NativeModule internal/deps/undici/undici". */
  readonly builtins: string[];
}

/** What a `peerscope serve` in front of `sim`'s servers has loaded once it serves and has idled `idleMs`. */
async function loadedByServe(sim: SimCluster, dir: string, idleMs: number): Promise<Loaded> {
  const log = join(dir, 'loaded.txt');
  writeFileSync(log, '');
  const servers = sim.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]);
  const child = spawn(
    process.execPath,
    ['--import', join(dir, 'hook.mjs'), 'bin/peerscope', 'serve', ...servers, '--listen', '127.0.0.1:0'],
    {
      cwd: repoRoot,
      env: { ...process.env, PEERSCOPE_LOAD_LOG: log },
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  try {
    await once(createInterface({ input: child.stdout! }), 'line');
    await new Promise((r) => setTimeout(r, idleMs));
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  const lines = readFileSync(log, 'utf8').split('\n');
  const urls = [...new Set(lines.filter((u) => u.startsWith('file:')))];
  const builtins = lines.flatMap((l) => (l.startsWith('node-internal:') ? [l.slice('node-internal:'.length)] : []));
  const packageFiles = urls.flatMap((u) => /\/node_modules\/(.*)$/.exec(u)?.[1] ?? []);
  const packages = new Set(packageFiles.map((f) => (f.startsWith('@') ? f.split('/').slice(0, 2).join('/') : f.split('/')[0]!)));
  const sources = new Set<string>();
  const dist = `${pathToFileURL(join(repoRoot, 'dist')).href}/`;
  for (const url of urls.filter((u) => u.startsWith(dist) && u.endsWith('.mjs'))) {
    const file = fileURLToPath(url);
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    // Source map paths are relative to the map's folder (dist/ or dist/chunks/).
    for (const source of map.sources) sources.add(join(file, '..', source).slice(repoRoot.length + 1));
  }
  return { packages, packageFiles, sources, builtins };
}

describe.runIf(hasHooks)('peerscope serve loads only what the port uses', () => {
  let sim: SimCluster;
  let dir: string;
  let loaded: Loaded;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'peerscope-loads-'));
    writeFileSync(join(dir, 'hook.mjs'), HOOK);
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], http: true });
    loaded = await loadedByServe(sim, dir, 1_000);
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads the port: its engine, HTTP client, schemas, metrics and flags', () => {
    for (const name of ['undici', 'zod', 'prom-client', 'commander']) expect(loaded.packages).toContain(name);
    expect(loaded.sources).toContain('proxy-core/engine/core.ts');
    expect(loaded.sources).toContain('proxy-core/hosts/cli/serve-run.ts');
    expect(loaded.builtins).toContain('NativeModule http');
  });

  it("does not load Node's own copy of undici (an ES import of node:http would, by reading http.WebSocket)", () => {
    expect(loaded.builtins.filter((m) => m.includes('deps/undici'))).toEqual([]);
  });

  it('does not load the report charts, the Parquet writer, the simulator, YAML or the UI server', () => {
    const unused = /^(d3-.*|hyparquet|hyparquet-writer|fast-json-patch|yaml)$/;
    expect([...loaded.packages].filter((p) => unused.test(p))).toEqual([]);
    expect(loaded.packageFiles.filter((f) => f.startsWith('protobufjs/light'))).toEqual([]);
    const notUsed = [
      /^proxy-core\/sim\//,
      /^proxy-core\/engine\/recording\/(report|export)/,
      /^proxy-core\/engine\/recording\/reader/,
      /^proxy-core\/hosts\/ui-server\//,
      /^proxy-core\/hosts\/cli\/(sim-run|demo-run|recording-read|recording-report-write|recording-export-write|snapshot-run|report-run|audit-run|servers-run|ui)\.ts$/,
      /^proxy-core\/engine\/cluster\/kubeconfig-read\.ts$/,
    ];
    expect([...loaded.sources].filter((s) => notUsed.some((re) => re.test(s)))).toEqual([]);
  });
});

if (!hasHooks) console.log('cli-serve-loads: skipped: this Node has no module.registerHooks (Node 22.15 and later have it)');
