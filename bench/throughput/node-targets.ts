// The targets that need nothing but Node and this repository: no proxy at all, Peerscope itself,
// the bare undici proxy and the Node floor (the last two bundled into the build directory).
import { join } from 'node:path';
import { startServing, stopChild } from './child-processes.js';
import type { Files, Target, UpstreamProcess } from './targets.js';

export function startDirect(upstream: UpstreamProcess): Target {
  return { name: 'direct', url: upstream.url, direct: true, pids: () => [], stop: async () => undefined };
}

export async function startPeerscope(
  files: Files,
  servers: readonly UpstreamProcess[],
  name: 'peerscope' | 'peerscope-local',
  nodeFlags: readonly string[] = [],
  env: Env = {},
  cli = 'bin/peerscope',
): Promise<Target> {
  const args = [
    ...nodeFlags,
    cli,
    'serve',
    ...servers.flatMap((s) => ['--server', `${s.name}=${s.url}`]),
    '--ca',
    files.caFile,
    '--token-file',
    files.tokenFile,
    '--listen',
    '127.0.0.1:0',
    '--policy',
    'round-robin',
  ];
  const { child, port } = await startServing(process.execPath, args, { ...process.env, ...env });
  return { name, url: `http://127.0.0.1:${port}`, direct: false, pids: () => [child.pid as number], stop: () => stopChild(child) };
}

/** bare-proxy.ts: node:http and undici's request() + pipe(), no routing. */
export function startBareUndici(
  files: Files,
  upstream: UpstreamProcess,
  nodeFlags: readonly string[] = [],
  env: Env = {},
): Promise<Target> {
  return startYardstick('bare-undici', 'bare-proxy.mjs', files, upstream, nodeFlags, env);
}

/** floor-proxy.ts: what any Node proxy keeps of the gap (no node:http on the client side, no checks). */
export function startNodeFloor(files: Files, upstream: UpstreamProcess, nodeFlags: readonly string[] = [], env: Env = {}): Promise<Target> {
  return startYardstick('node-floor', 'floor-proxy.mjs', files, upstream, nodeFlags, env);
}

/** http-floor-proxy.ts: the Node floor behind node:http's server (profile.ts only, not a bench target). */
export function startHttpFloor(files: Files, upstream: UpstreamProcess, nodeFlags: readonly string[] = [], env: Env = {}): Promise<Target> {
  return startYardstick('http-floor', 'http-floor-proxy.mjs', files, upstream, nodeFlags, env);
}

/** pipe-proxy.ts: a watch's bytes copied between two sockets, the least a Node relay can do. */
export async function startNodePipe(
  files: Files,
  upstream: UpstreamProcess,
  nodeFlags: readonly string[] = [],
  env: Env = {},
): Promise<Target> {
  return { ...(await startYardstick('node-pipe', 'pipe-proxy.mjs', files, upstream, nodeFlags, env)), watchOnly: true };
}

type Env = Readonly<Record<string, string>>;

/** One of the yardstick proxies bundled into the build directory, in front of one upstream. */
async function startYardstick(
  name: 'bare-undici' | 'node-floor' | 'node-pipe' | 'http-floor',
  bundleFile: string,
  files: Files,
  upstream: UpstreamProcess,
  nodeFlags: readonly string[],
  env: Env,
): Promise<Target> {
  const { child, port } = await startServing(
    process.execPath,
    [...nodeFlags, join(files.buildDir, bundleFile), upstream.url, files.caFile, files.token],
    { ...process.env, ...env },
  );
  return { name, url: `http://127.0.0.1:${port}`, direct: false, pids: () => [child.pid as number], stop: () => stopChild(child) };
}
