// Builds every part that exists: the CLI bundle, the renderer, Electron main and preload.
// `--cli` builds the CLI bundle only (what the CLI tests need; it takes well under a second).
import { build } from 'esbuild';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const started = Date.now();
const cliOnly = process.argv.includes('--cli');
await build({
  entryPoints: ['proxy-core/hosts/cli.ts'],
  outfile: 'dist/cli.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
  charset: 'ascii',
});
asciiComments('dist/cli.mjs');
if (!cliOnly && existsSync('renderer/vite.config.ts')) {
  const { build: viteBuild } = await import('vite');
  await viteBuild({ configFile: 'renderer/vite.config.ts', logLevel: 'warn' });
}
// Electron main and preload: CommonJS for Electron's loader; `electron` is provided by the runtime.
if (!cliOnly && existsSync('electron/main.ts')) {
  await build({
    entryPoints: { main: 'electron/main.ts', preload: 'electron/preload.ts' },
    outdir: 'dist/electron',
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    external: ['electron'],
    // ESM builds first: jsonc-parser's "main" is a UMD bundle whose require('./impl/…') esbuild cannot
    // follow, so the bundled main process would throw "Cannot find module" at start.
    mainFields: ['module', 'main'],
    sourcemap: true,
    logLevel: 'warning',
  });
}
/**
 * V8 keeps a module's source for its whole life, one byte a character only if every character is
 * Latin-1: the 20 comments esbuild keeps with a `→` or `×` made the CLI's 0.8 MB bundle a 1.5 MiB
 * string in every process. `charset: 'ascii'` escapes code; this escapes what is left, all in comments.
 */
function asciiComments(file) {
  const text = readFileSync(file, 'utf8');
  const ascii = text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== text) writeFileSync(file, ascii);
}
console.log(`build: done in ${Date.now() - started} ms`);
