// Starts the targets asked for, in a fixed order. A target whose program is missing or that fails
// to start is skipped with the reason printed, so one absent tool never stops the bench.
import { findTool } from './child-processes.js';
import { startKubectlProxy, startNginx } from './external-targets.js';
import { startBareUndici, startDirect, startNodeFloor, startNodePipe, startPeerscope } from './node-targets.js';
import type { Files, Target, TargetName, UpstreamProcess } from './targets.js';

/**
 * Starts every target in `only` (all when undefined) in front of the "new" apiserver (Peerscope in
 * front of both). Pushes each started one to `launched` at once, so the caller stops it even if a
 * later start fails; records and logs every skip.
 */
export async function launchTargets(
  files: Files,
  [old, neu]: readonly [UpstreamProcess, UpstreamProcess],
  only: readonly TargetName[] | undefined,
  launched: Target[],
  skipped: { target: string; reason: string }[],
  log: (line: string) => void,
): Promise<void> {
  const want = (n: TargetName) => !only || only.includes(n);
  const starters: [TargetName, () => Promise<Target> | Target][] = [
    ['direct', () => startDirect(neu)],
    ['peerscope', () => startPeerscope(files, [old, neu], 'peerscope')],
    ['peerscope-local', () => startPeerscope(files, [neu], 'peerscope-local')],
    [
      'kubectl',
      () => {
        const kubectl = findTool('/usr/bin/kubectl') ?? findTool('kubectl');
        if (!kubectl) throw new Skip('kubectl not found (/usr/bin/kubectl or PATH)');
        return startKubectlProxy(files, kubectl, neu);
      },
    ],
    [
      'nginx',
      () => {
        const nginx = findTool('nginx');
        if (!nginx) throw new Skip('nginx not found on PATH (Debian: apt-get install nginx-light)');
        return startNginx(files, nginx, neu);
      },
    ],
    ['bare-undici', () => startBareUndici(files, neu)],
    ['node-floor', () => startNodeFloor(files, neu)],
    ['node-pipe', () => startNodePipe(files, neu)],
  ];
  for (const [name, start] of starters) {
    if (!want(name)) continue;
    try {
      launched.push(await start());
    } catch (err) {
      const reason = err instanceof Skip ? err.message : `failed to start: ${(err as Error).message}`;
      skipped.push({ target: name, reason });
      log(`skip  ${name}: ${reason}`);
    }
  }
}

class Skip extends Error {}
