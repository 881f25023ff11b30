#!/usr/bin/env node
// npm run kube:build — builds real kube-apiserver binaries of the two newest minor releases the
// Go module proxy serves for k8s.io/kubernetes, and the etcd they require, into a cache outside
// the clone. Nothing of Kubernetes is committed: the two main.go files beside this script are the
// project's own; their go.mod is written here, per release, into the cache.
//
// Also the clients the kube tests drive through the port (test/kube/every-client.test.ts): Helm
// (helm.sh/helm/v4 at HELM_VERSION, installed as its own go.mod pins it) and legacy-discovery (the
// main.go beside this script, on the client-go of the newer release), and watch-client, which
// bench/throughput/watch-client.ts drives (client-go's dynamic client timing watches). A client that
// fails to build is left out of the manifest with a line saying why; the tests that need it skip.
//
// Ends with one line per binary: `NAME VERSION PATH`. A no-op when the cache is complete.
//
// Environment:
//   PEERSCOPE_KUBE_CACHE     cache root (default ~/.cache/peerscope/kube)
//   PEERSCOPE_KUBE_VERSIONS  comma-separated releases instead of asking the proxy (v1.37.2,v1.36.3)
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const cacheRoot = process.env.PEERSCOPE_KUBE_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'peerscope', 'kube');
const goEnv = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', GOWORK: 'off' };

function log(line) {
  process.stderr.write(`kube:build: ${line}\n`);
}

/** The Helm release the kube tests install charts with. */
const HELM_VERSION = 'v4.3.1';

function go(args, cwd, env = goEnv) {
  const res = spawnSync('go', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (res.error) throw new Error(`go ${args.join(' ')}: ${res.error.message} (is Go installed and on PATH?)`);
  if (res.status !== 0)
    throw new Error(`go ${args.join(' ')} (in ${cwd}) exited ${res.status}:\n${res.stderr.trim().split('\n').slice(-20).join('\n')}`);
  return res.stdout;
}

/** Newest patch of the two newest minor releases, stable tags only. */
function newestReleases() {
  if (process.env.PEERSCOPE_KUBE_VERSIONS)
    return process.env.PEERSCOPE_KUBE_VERSIONS.split(',')
      .map((v) => v.trim())
      .filter(Boolean);
  const out = go(['list', '-m', '-versions', 'k8s.io/kubernetes'], cacheRoot).trim().split(/\s+/).slice(1);
  const byMinor = new Map();
  for (const v of out) {
    const m = /^v1\.(\d+)\.(\d+)$/.exec(v);
    if (!m) continue;
    const minor = Number(m[1]);
    const patch = Number(m[2]);
    if (!byMinor.has(minor) || byMinor.get(minor).patch < patch) byMinor.set(minor, { v, patch });
  }
  const minors = [...byMinor.keys()].sort((a, b) => b - a).slice(0, 2);
  if (minors.length < 2) throw new Error(`the Go module proxy lists fewer than two stable minors of k8s.io/kubernetes: ${out.join(' ')}`);
  return minors.map((m) => byMinor.get(m).v).sort();
}

/** The newest releases; offline, the ones already built (the cache stays usable without the proxy). */
function releasesToBuild() {
  try {
    return newestReleases();
  } catch (err) {
    const manifest = join(cacheRoot, 'manifest.json');
    if (!existsSync(manifest)) throw err;
    const built = JSON.parse(readFileSync(manifest, 'utf8')).releases ?? [];
    if (built.length < 2) throw err;
    log(
      `cannot ask the Go module proxy for the newest releases (${err.message.replace(/\s+/g, ' ').slice(0, 240)}); keeping the ones built: ${built.join(', ')}`,
    );
    return built;
  }
}

/** The staging modules k8s.io/kubernetes replaces with local folders, and the etcd server it requires. */
function releaseModuleFacts(version) {
  const info = JSON.parse(go(['mod', 'download', '-json', `k8s.io/kubernetes@${version}`], cacheRoot));
  const gomod = readFileSync(info.GoMod, 'utf8');
  const staging = [...gomod.matchAll(/^\s*(k8s\.io\/[\w.-]+)\s+=>\s+\.\/staging\//gm)].map((m) => m[1]);
  const etcd = /go\.etcd\.io\/etcd\/server\/v3 (v3\.\d+\.\d+)/.exec(gomod)?.[1];
  const goLine = /^go (\S+)/m.exec(gomod)?.[1] ?? '1.26.0';
  if (staging.length === 0) throw new Error(`k8s.io/kubernetes@${version}: its go.mod names no staging modules`);
  return { staging, etcd, goLine };
}

function stagingVersion(version) {
  // v1.N.P of k8s.io/kubernetes publishes its staging modules as v0.N.P.
  return version.replace(/^v1\./, 'v0.');
}

function buildModule({ name, dir, goMod, mainSource, out, ldflags }) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'go.mod'), goMod);
  copyFileSync(mainSource, join(dir, 'main.go'));
  log(`${name}: resolving modules in ${dir}`);
  go(['mod', 'tidy'], dir);
  log(`${name}: go build (the first build of a release takes minutes on two cores)`);
  const tmp = `${out}.partial`;
  go(['build', '-trimpath', '-ldflags', ldflags, '-o', tmp, '.'], dir);
  renameSync(tmp, out);
}

/** The binary exists and was built from the main.go beside this script (a changed main.go rebuilds; Go's cache makes that a relink). */
function upToDate(out, srcDir, mainSource) {
  if (!existsSync(out)) return false;
  const built = join(srcDir, 'main.go');
  return existsSync(built) && readFileSync(built, 'utf8') === readFileSync(mainSource, 'utf8');
}

function buildApiserver(version, facts) {
  const dir = join(cacheRoot, version);
  const out = join(dir, 'kube-apiserver');
  const mainSource = join(here, 'kube-apiserver', 'main.go');
  if (upToDate(out, join(dir, 'src'), mainSource)) return out;
  const v0 = stagingVersion(version);
  const goMod = [
    'module peerscope.test/kube-apiserver',
    '',
    `go ${facts.goLine}`,
    '',
    `require k8s.io/kubernetes ${version}`,
    '',
    'replace (',
    ...facts.staging.map((m) => `\t${m} => ${m} ${v0}`),
    ')',
    '',
  ].join('\n');
  const [, major, minor] = /^v(\d+)\.(\d+)/.exec(version);
  const flags = [];
  for (const pkg of ['k8s.io/client-go/pkg/version', 'k8s.io/component-base/version']) {
    flags.push(
      `-X ${pkg}.gitVersion=${version}`,
      `-X ${pkg}.gitMajor=${major}`,
      `-X ${pkg}.gitMinor=${minor}`,
      `-X ${pkg}.gitTreeState=clean`,
    );
  }
  const started = Date.now();
  buildModule({ name: `kube-apiserver ${version}`, dir: join(dir, 'src'), goMod, mainSource, out, ldflags: `-s -w ${flags.join(' ')}` });
  log(`kube-apiserver ${version}: built in ${Math.round((Date.now() - started) / 1000)} s`);
  return out;
}

function buildEtcd(version, goLine) {
  const dir = join(cacheRoot, `etcd-${version}`);
  const out = join(dir, 'etcd');
  const mainSource = join(here, 'etcd', 'main.go');
  if (upToDate(out, join(dir, 'src'), mainSource)) return out;
  const goMod = ['module peerscope.test/etcd', '', `go ${goLine}`, '', `require go.etcd.io/etcd/server/v3 ${version}`, ''].join('\n');
  const started = Date.now();
  buildModule({ name: `etcd ${version}`, dir: join(dir, 'src'), goMod, mainSource, out, ldflags: '-s -w' });
  log(`etcd ${version}: built in ${Math.round((Date.now() - started) / 1000)} s`);
  return out;
}

// Toxiproxy (Shopify's TCP fault proxy) for the link faults of the kube suite (test/kube/toxiproxy.ts):
// built from the Go module proxy like the servers, its own server command as published (no main.go
// of ours: nothing to change in it). A blank import keeps the requirement through `go mod tidy`.
const TOXIPROXY_VERSION = 'v2.5.0';

function buildToxiproxy() {
  const dir = join(cacheRoot, `toxiproxy-${TOXIPROXY_VERSION}`);
  const out = join(dir, 'toxiproxy-server');
  if (existsSync(out)) return out;
  const src = join(dir, 'src');
  mkdirSync(src, { recursive: true });
  writeFileSync(
    join(src, 'go.mod'),
    ['module peerscope.test/toxiproxy', '', 'go 1.26', '', `require github.com/Shopify/toxiproxy/v2 ${TOXIPROXY_VERSION}`, ''].join('\n'),
  );
  writeFileSync(join(src, 'tools.go'), '//go:build tools\n\npackage tools\n\nimport _ "github.com/Shopify/toxiproxy/v2/cmd/server"\n');
  const started = Date.now();
  log(`toxiproxy ${TOXIPROXY_VERSION}: resolving modules in ${src}`);
  go(['mod', 'tidy'], src);
  const tmp = `${out}.partial`;
  go(['build', '-trimpath', '-ldflags', '-s -w', '-o', tmp, 'github.com/Shopify/toxiproxy/v2/cmd/server'], src);
  renameSync(tmp, out);
  log(`toxiproxy ${TOXIPROXY_VERSION}: built in ${Math.round((Date.now() - started) / 1000)} s`);
  return out;
}

function buildHelm() {
  const dir = join(cacheRoot, `helm-${HELM_VERSION}`);
  const out = join(dir, 'helm');
  if (existsSync(out)) return out;
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  log(`helm ${HELM_VERSION}: go install (minutes the first time)`);
  // `go install module@version` builds with Helm's own go.mod, as its release is built.
  go(['install', '-trimpath', '-ldflags', '-s -w', `helm.sh/helm/v4/cmd/helm@${HELM_VERSION}`], cacheRoot, { ...goEnv, GOBIN: dir });
  log(`helm ${HELM_VERSION}: built in ${Math.round((Date.now() - started) / 1000)} s`);
  return out;
}

/** A program of ours beside this script (NAME/main.go) on the client-go of the newer release. */
function buildClientGoProgram(name, newer, goLine) {
  const clientGo = stagingVersion(newer);
  const dir = join(cacheRoot, `${name}-${clientGo}`);
  const out = join(dir, name);
  const mainSource = join(here, name, 'main.go');
  if (upToDate(out, join(dir, 'src'), mainSource)) return out;
  const goMod = [`module peerscope.test/${name}`, '', `go ${goLine}`, '', `require k8s.io/client-go ${clientGo}`, ''].join('\n');
  const started = Date.now();
  buildModule({ name: `${name} (client-go ${clientGo})`, dir: join(dir, 'src'), goMod, mainSource, out, ldflags: '-s -w' });
  log(`${name}: built in ${Math.round((Date.now() - started) / 1000)} s`);
  return out;
}

/** A client the kube tests drive: built, or left out with a line saying why. */
function optionalClient(lines, name, version, build) {
  try {
    lines.push([name, version, build()]);
  } catch (err) {
    log(`${name} ${version} not built, the tests that need it skip: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function main() {
  mkdirSync(cacheRoot, { recursive: true });
  const started = Date.now();
  const releases = releasesToBuild();
  const lines = [];
  const etcdVersions = new Map();
  const goLines = new Map();
  for (const version of releases) {
    const facts = releaseModuleFacts(version);
    goLines.set(version, facts.goLine);
    if (facts.etcd) etcdVersions.set(facts.etcd, facts.goLine);
    lines.push(['kube-apiserver', version, buildApiserver(version, facts)]);
  }
  // One etcd serves both releases: the newest any of them requires.
  const etcdVersion = [...etcdVersions.keys()].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).pop();
  if (!etcdVersion) throw new Error('no release names the etcd server it requires');
  const etcdPath = buildEtcd(etcdVersion, etcdVersions.get(etcdVersion));
  lines.push(['etcd', etcdVersion, etcdPath]);
  lines.push(['toxiproxy', TOXIPROXY_VERSION, buildToxiproxy()]);
  const newer = [...releases].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).pop();
  optionalClient(lines, 'helm', HELM_VERSION, buildHelm);
  for (const program of ['legacy-discovery', 'watch-client'])
    optionalClient(lines, program, stagingVersion(newer), () => buildClientGoProgram(program, newer, goLines.get(newer)));
  // The manifest the test harness reads (test/kube/binaries.ts).
  // Entries of binaries this script does not build (another script's) are kept as they are.
  const built = new Set(['kube-apiserver', 'etcd', 'toxiproxy', 'helm', 'legacy-discovery', 'watch-client']);
  const manifestFile = join(cacheRoot, 'manifest.json');
  const others = existsSync(manifestFile)
    ? (JSON.parse(readFileSync(manifestFile, 'utf8')).binaries ?? []).filter((b) => !built.has(b.name))
    : [];
  const manifest = { releases, binaries: [...lines.map(([name, version, path]) => ({ name, version, path })), ...others] };
  writeFileSync(join(cacheRoot, 'manifest.json.tmp'), `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(join(cacheRoot, 'manifest.json.tmp'), join(cacheRoot, 'manifest.json'));
  const seconds = Math.round((Date.now() - started) / 1000);
  if (seconds > 5) log(`done in ${seconds} s`);
  for (const [name, version, path] of lines) process.stdout.write(`${name} ${version} ${path}\n`);
}

try {
  main();
} catch (err) {
  log(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
