// The real Kubernetes binaries the kube tests run: what `npm run kube:build` wrote to its cache
// (manifest.json, one entry per binary). Where they are missing, the tests skip and say once why
// and how to build them.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { testNetworkUnavailable } from './test-network.js';

export interface KubeBinaries {
  /** kube-apiserver path by release, oldest first (v1.36.3, v1.37.2). */
  readonly apiservers: ReadonlyMap<string, string>;
  readonly etcd: string;
  readonly etcdVersion: string;
  /** The two releases, oldest first. */
  readonly older: string;
  readonly newer: string;
  /** Clients built beside them (scripts/kube/build.mjs), absent when their build failed: name → path. */
  readonly clients: ReadonlyMap<string, string>;
}

export const kubeCache =
  process.env.PEERSCOPE_KUBE_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'peerscope', 'kube');

interface Manifest {
  releases?: string[];
  binaries?: { name: string; version: string; path: string }[];
}

function load(): { binaries?: KubeBinaries; missing?: string } {
  const file = join(kubeCache, 'manifest.json');
  if (!existsSync(file)) return { missing: `no ${file}` };
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  } catch (err) {
    return { missing: `${file} is not JSON (${(err as Error).message})` };
  }
  const entries = manifest.binaries ?? [];
  const absent = entries.filter((b) => !existsSync(b.path)).map((b) => b.path);
  if (absent.length) return { missing: `${absent.join(', ')} missing` };
  const apiservers = new Map(entries.filter((b) => b.name === 'kube-apiserver').map((b) => [b.version, b.path] as const));
  const etcd = entries.find((b) => b.name === 'etcd');
  const releases = [...apiservers.keys()].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  if (releases.length < 2 || !etcd)
    return { missing: `${file} lists ${releases.length} kube-apiserver release(s) and ${etcd ? 'an' : 'no'} etcd` };
  return {
    binaries: {
      apiservers,
      etcd: etcd.path,
      etcdVersion: etcd.version,
      older: releases[0] as string,
      newer: releases[releases.length - 1] as string,
      clients: new Map(entries.filter((b) => b.name !== 'kube-apiserver' && b.name !== 'etcd').map((b) => [b.name, b.path] as const)),
    },
  };
}

/** The servers run in the tests' own network namespace (test-network.ts), which only root may make. */
function addresses(): string | undefined {
  return testNetworkUnavailable();
}

const loaded = load();

/**
 * A client `npm run kube:build` built, wherever the servers can run or not (the bench's tools use them
 * outside the tests' network namespace): its path, or why there is none.
 */
export function builtClient(name: string): { path: string } | { missing: string } {
  if (!loaded.binaries) return { missing: `${loaded.missing ?? 'no manifest'}; build it with \`npm run kube:build\`` };
  const path = loaded.binaries.clients.get(name);
  return path ? { path } : { missing: `${join(kubeCache, 'manifest.json')} lists no ${name}; build it with \`npm run kube:build\`` };
}
const noAddresses = loaded.binaries ? addresses() : undefined;
const found = noAddresses ? { missing: noAddresses } : loaded;
export const kubeBinaries = found.binaries;
/** Why the kube tests skip, or undefined when they run. */
export const kubeSkipReason = noAddresses
  ? `skipping the real-Kubernetes tests: ${noAddresses}`
  : found.missing
    ? `skipping the real-Kubernetes tests: ${found.missing}; build the binaries with \`npm run kube:build\` (needs Go and the Go module proxy; minutes the first time)`
    : undefined;

let said = false;
/** Prints the skip reason once per test file; returns true when the tests must skip. */
export function skipKube(): boolean {
  if (kubeSkipReason && !said) {
    said = true;
    console.log(kubeSkipReason);
  }
  return kubeSkipReason !== undefined;
}
