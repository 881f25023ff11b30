// Builds every part that exists: the CLI bundle, the renderer, Electron main and preload.
// `--cli` builds the CLI bundle only (what the CLI tests need; it takes well under a second).
import { build } from 'esbuild';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const started = Date.now();
const cliOnly = process.argv.includes('--cli');
// Split: the entry (dist/cli.mjs) holds the commands' flags; what a command runs is a chunk it
// imports when it runs (dist/chunks/), so `serve` never loads the report's charts, the Parquet
// writer or the simulator (docs/decisions.md, "serve's memory against issue 42's targets").
const cli = await build({
  entryPoints: { cli: 'proxy-core/hosts/cli.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
  charset: 'ascii',
  metafile: true,
  plugins: [nodeHttpWithoutWebSocket()],
});
const written = Object.keys(cli.metafile.outputs);
for (const file of written) if (file.endsWith('.mjs')) asciiComments(file);
// Chunks of an earlier build are named by other hashes: removed, so dist/ holds one build.
for (const file of existsSync('dist/chunks') ? readdirSync('dist/chunks') : [])
  if (!written.includes(`dist/chunks/${file}`)) rmSync(`dist/chunks/${file}`);
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
 * `import … from 'node:http'` in an ES module makes Node build the module's namespace from every
 * export of http, and on Node 24 that reads http.WebSocket, which loads Node's own bundled copy of
 * undici: 13 MiB of RSS in a process that imports http and nothing else, 1.5–2 MiB in an idle
 * `serve` (docs/decisions.md, "serve's memory against issue 42's targets"). The bundle takes http
 * from process.getBuiltinModule instead, whose getters stay unread; each name the code imports is
 * listed here, and one missing fails the build ("No matching export").
 */
function nodeHttpWithoutWebSocket() {
  const names = ['Agent', 'IncomingMessage', 'METHODS', 'STATUS_CODES', 'Server', 'ServerResponse', 'createServer', 'get', 'request'];
  return {
    name: 'node-http-without-websocket',
    setup(bundle) {
      bundle.onResolve({ filter: /^(node:)?http$/ }, () => ({ path: 'node:http', namespace: 'node-http' }));
      bundle.onLoad({ filter: /.*/, namespace: 'node-http' }, () => ({
        contents: `const http = process.getBuiltinModule('node:http');\nexport default http;\nexport const { ${names.join(', ')} } = http;\n`,
        loader: 'js',
      }));
    },
  };
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
