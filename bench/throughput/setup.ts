// What every bench run needs before a target starts: the bundled child processes, the CA, the
// certificates, the token, the discovery documents, and the two fake apiservers.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { aggregatedDiscovery, loadRelease } from '../../proxy-core/engine/releases/index.js';
import { createCertificateAuthority, issueServerCertificate } from '../../proxy-core/engine/tls/certs.js';
import { fixHeapGrowth } from '../../proxy-core/engine/util/heap-growth.js';
import { buildBodies, NEW_RELEASE, OLD_RELEASE } from './objects.js';
import type { Files, Target, UpstreamProcess } from './targets.js';
import { startUpstream } from './upstream-process.js';

/** Bundles the processes the bench starts, so none of them carries tsx's loader. */
export async function bundle(buildDir: string): Promise<void> {
  const here = new URL('.', import.meta.url).pathname;
  mkdirSync(buildDir, { recursive: true });
  await build({
    entryPoints: {
      upstream: join(here, 'upstream.ts'),
      'bare-proxy': join(here, 'bare-proxy.ts'),
      'floor-proxy': join(here, 'floor-proxy.ts'),
      'pipe-proxy': join(here, 'pipe-proxy.ts'),
      'http-floor-proxy': join(here, 'http-floor-proxy.ts'),
      'cluster-peerscope': join(here, 'cluster-peerscope.ts'),
      'load-child': join(here, 'load-child.ts'),
    },
    outdir: buildDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
}

export async function prepareFiles(dir: string): Promise<Files> {
  const ca = await createCertificateAuthority('peerscope-bench-ca');
  const server = await issueServerCertificate(ca);
  const files: Files = {
    dir,
    caFile: join(dir, 'ca.pem'),
    certFile: join(dir, 'server.pem'),
    keyFile: join(dir, 'server-key.pem'),
    token: 'bench-token-0123456789abcdef',
    tokenFile: join(dir, 'token'),
    // Inside the repository, so the bundles resolve undici from its node_modules.
    buildDir: join(process.cwd(), 'dist', 'bench'),
  };
  writeFileSync(files.caFile, ca.cert);
  writeFileSync(files.certFile, server.cert);
  writeFileSync(files.keyFile, server.key, { mode: 0o600 });
  writeFileSync(files.tokenFile, files.token, { mode: 0o600 });
  for (const release of [OLD_RELEASE, NEW_RELEASE]) {
    const catalog = loadRelease(release);
    writeFileSync(join(dir, `${release}-apis.json`), JSON.stringify(aggregatedDiscovery(catalog, 'apis')));
    writeFileSync(join(dir, `${release}-api.json`), JSON.stringify(aggregatedDiscovery(catalog, 'api')));
  }
  writeFileSync(join(dir, 'create.json'), buildBodies().create);
  return files;
}

/** The two fake apiservers: "old" lacks the bench GVR, "new" serves it (and gets every bench request). */
export async function startUpstreams(
  files: Files,
  workers: number,
  watchEvents: number,
  started: UpstreamProcess[] = [],
): Promise<[UpstreamProcess, UpstreamProcess]> {
  const old = await startUpstream(files, {
    name: 'old',
    gitVersion: 'v1.36.0-bench',
    apisFile: join(files.dir, `${OLD_RELEASE}-apis.json`),
    apiFile: join(files.dir, `${OLD_RELEASE}-api.json`),
    servesBench: false,
    workers: 1,
    watchEvents: 0,
  });
  started.push(old);
  const neu = await startUpstream(files, {
    name: 'new',
    gitVersion: 'v1.37.0-bench',
    apisFile: join(files.dir, `${NEW_RELEASE}-apis.json`),
    apiFile: join(files.dir, `${NEW_RELEASE}-api.json`),
    servesBench: true,
    workers,
    watchEvents,
  });
  started.push(neu);
  return [old, neu];
}

/**
 * This process times the watches, as their client, so it runs with the port's heap settings: with V8's
 * own, its CPU for the same 100,000-event watch was 63–73 ms in some runs and 94–125 ms in others (the
 * growth heuristic's two modes, as the port's LIST had), and a slow client hides what a proxy costs.
 */
export function steadyClient(): void {
  fixHeapGrowth({});
}

/**
 * The frame of an experiment script: the files and the two fake apiservers ("old" and "new", 100,000
 * watch events) up, `run` given them, then every target it pushed onto `started` and both apiservers
 * stopped and the files removed, however `run` ends.
 */
export async function experiment(
  name: string,
  run: (x: { files: Files; old: UpstreamProcess; neu: UpstreamProcess; started: Target[] }) => Promise<void>,
): Promise<void> {
  steadyClient();
  const dir = mkdtempSync(join(tmpdir(), `peerscope-${name}-`));
  const upstreams: UpstreamProcess[] = [];
  const started: Target[] = [];
  try {
    const files = await prepareFiles(dir);
    await bundle(files.buildDir);
    const [old, neu] = await startUpstreams(files, 2, 100_000, upstreams);
    await run({ files, old: old as UpstreamProcess, neu: neu as UpstreamProcess, started });
  } finally {
    for (const t of started) await t.stop();
    await Promise.all(upstreams.map((u) => u.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}
