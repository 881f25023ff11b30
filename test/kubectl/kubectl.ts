// Runs the real kubectl (/usr/bin/kubectl) with a private cache and config, so tests never share
// discovery caches. Where kubectl is missing, its tests skip and say why.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const KUBECTL = '/usr/bin/kubectl';
export const hasKubectl = existsSync(KUBECTL);
if (!hasKubectl) console.warn(`skipping the kubectl tests: ${KUBECTL} is not installed on this machine`);

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A kubectl with its own empty kubeconfig and cache directory. */
export function kubectlAt(server: string) {
  const dir = mkdtempSync(join(tmpdir(), 'peerscope-kubectl-'));
  const kubeconfig = join(dir, 'config');
  writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
  return (args: readonly string[], timeoutMs = 20_000): Promise<KubectlResult> =>
    new Promise((resolve) => {
      execFile(
        KUBECTL,
        ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), '--server', server, ...args],
        { timeout: timeoutMs, env: { ...process.env, HOME: dir } },
        (err, stdout, stderr) => {
          const code = err
            ? typeof (err as NodeJS.ErrnoException).code === 'number'
              ? Number((err as NodeJS.ErrnoException).code)
              : 1
            : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
}

/** A kubectl reading the given kubeconfig (e.g. a simulated cluster's), with its own cache; `env` adds variables such as KUBE_EDITOR. */
export function kubectlWithConfig(kubeconfigText: string) {
  const dir = mkdtempSync(join(tmpdir(), 'peerscope-kubectl-'));
  const kubeconfig = join(dir, 'config');
  writeFileSync(kubeconfig, kubeconfigText, { mode: 0o600 });
  return (args: readonly string[], env: Record<string, string> = {}, timeoutMs = 20_000): Promise<KubectlResult> =>
    new Promise((resolve) => {
      execFile(
        KUBECTL,
        ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
        { timeout: timeoutMs, env: { ...process.env, HOME: dir, ...env } },
        (err, stdout, stderr) => {
          const code = err
            ? typeof (err as NodeJS.ErrnoException).code === 'number'
              ? Number((err as NodeJS.ErrnoException).code)
              : 1
            : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
}
