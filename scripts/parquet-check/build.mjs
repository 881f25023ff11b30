#!/usr/bin/env node
// Builds parquet-check (main.go beside this script: a Parquet reader on github.com/parquet-go/parquet-go,
// independent of the writer `peerscope recording export` uses) into a cache outside the clone, from the
// Go module proxy; its go.mod is written there, as scripts/kube/build.mjs does. A no-op once built from
// this main.go. Prints the binary's path. The recording export's test runs it.
//   PEERSCOPE_PARQUET_CHECK_CACHE   cache folder (default ~/.cache/peerscope/parquet-check)
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PARQUET_GO = 'github.com/parquet-go/parquet-go@v0.32.0';
const here = dirname(fileURLToPath(import.meta.url));
const cache =
  process.env.PEERSCOPE_PARQUET_CHECK_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'peerscope', 'parquet-check');
const binary = join(cache, 'parquet-check');
const source = readFileSync(join(here, 'main.go'), 'utf8');
const stamp = join(cache, 'built-from');
const wanted = `${PARQUET_GO}\n${source}`;

if (!existsSync(binary) || !existsSync(stamp) || readFileSync(stamp, 'utf8') !== wanted) {
  mkdirSync(cache, { recursive: true });
  copyFileSync(join(here, 'main.go'), join(cache, 'main.go'));
  writeFileSync(join(cache, 'go.mod'), 'module parquetcheck\n\ngo 1.24\n');
  const env = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', GOWORK: 'off' };
  for (const args of [
    ['get', PARQUET_GO],
    ['build', '-o', binary, '.'],
  ]) {
    const res = spawnSync('go', args, { cwd: cache, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (res.error) throw new Error(`go ${args.join(' ')}: ${res.error.message} (is Go installed and on PATH?)`);
    if (res.status !== 0) throw new Error(`go ${args.join(' ')} (in ${cache}) exited ${res.status}:\n${res.stderr.trim()}`);
  }
  writeFileSync(stamp, wanted);
}
process.stdout.write(`${binary}\n`);
