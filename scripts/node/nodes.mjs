// The Nodes Peerscope runs and is tested on, and where their binaries come from.
//
// - shipped: the Node that Electron's pinned release embeds, so the port, the suite and the bench run
//   where the desktop app does (package.json `config.shippedNode`).
// - lowest: the lowest Node `engines` admits (package.json `engines.node`, `>=X.Y.Z`); the port's
//   tests, the fuzz, the stream tests and the recording's also run on it. 22.13.0: the first Node 22
//   with node:sqlite unflagged, which the session recording writes with (docs/decisions.md).
//
// A binary is taken from the npm registry's `node-<platform>-<arch>` package (the one the `node`
// package installs), unpacked once into ~/.cache/peerscope/node/<version>; no other download.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

function lowestFromEngines(range) {
  const m = /^>=\s*(\d+\.\d+\.\d+)$/.exec(String(range ?? '').trim());
  if (!m) throw new Error(`package.json engines.node must read ">=X.Y.Z" (the lowest supported Node), not ${JSON.stringify(range)}`);
  return m[1];
}

/** The two Nodes, by role. */
export const NODES = {
  shipped: String(pkg.config?.shippedNode ?? ''),
  lowest: lowestFromEngines(pkg.engines?.node),
};
if (!/^\d+\.\d+\.\d+$/.test(NODES.shipped)) throw new Error('package.json config.shippedNode must be a Node version (X.Y.Z)');

const cacheRoot = process.env.PEERSCOPE_NODE_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'peerscope', 'node');

/**
 * The path of the `node` binary of `version`: this process's own when it is that version, else the
 * cached one, fetched from the npm registry the first time.
 */
export function nodeBinary(version) {
  if (process.version === `v${version}`) return process.execPath;
  const dir = join(cacheRoot, version);
  const bin = join(dir, 'bin', 'node');
  if (existsSync(bin)) return bin;
  const name = `node-${process.platform}-${process.arch}`;
  process.stderr.write(`node: fetching Node ${version} (${name} from the npm registry) into ${dir}\n`);
  mkdirSync(cacheRoot, { recursive: true });
  const work = mkdtempSync(join(cacheRoot, `.${version}-`));
  try {
    const packed = spawnSync('npm', ['pack', `${name}@${version}`, '--pack-destination', work, '--silent'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (packed.status !== 0) throw new Error(`npm pack ${name}@${version} failed (exit ${packed.status}):\n${packed.stderr.trim()}`);
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${name}@${version} wrote no tarball`);
    const untar = spawnSync('tar', ['xzf', join(work, tarball), '-C', work, 'package/bin/node'], { encoding: 'utf8' });
    if (untar.status !== 0) throw new Error(`unpacking ${tarball} failed:\n${untar.stderr.trim()}`);
    const unpacked = join(work, 'package');
    chmodSync(join(unpacked, 'bin', 'node'), 0o755);
    // Renamed into place whole, so a fetch cut short never leaves a half-written binary behind.
    renameSync(unpacked, dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return bin;
}

/** The environment that puts `bin` first on PATH (npm, npx and every `#!/usr/bin/env node` then run on it). */
export function envWithNode(bin, env = process.env) {
  return { ...env, PATH: `${dirname(bin)}:${env.PATH ?? ''}` };
}
