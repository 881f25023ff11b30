// The demo session's temporary folder: the simulated servers' audit logs (the core follows them), the
// kubeconfig that points kubectl at the port, and by default the recording, which alone outlives it.
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RECORDING_SUFFIX } from '../../engine/recording/list.js';

/** A kubeconfig for the local port: plain HTTP on loopback, no user credentials. */
export function portKubeconfig(url: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: peerscope',
    '  cluster:',
    `    server: ${url}`,
    'contexts:',
    '- name: peerscope',
    '  context:',
    '    cluster: peerscope',
    '    user: peerscope',
    'users:',
    '- name: peerscope',
    '  user: {}',
    'current-context: peerscope',
    '',
  ].join('\n');
}

/** Where a recording goes by default: "demo-20261127-143205" and the suffix, in the session folder. */
export function defaultRecordingFile(dir: string): string {
  const time = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return join(dir, `demo-${time}${RECORDING_SUFFIX}`);
}

/** Removes the session folder, or, when the recording is in it, everything else. */
export function removeAllBut(dir: string, recording: string | undefined): void {
  if (!recording || dirname(recording) !== dir) {
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  for (const name of readdirSync(dir)) if (join(dir, name) !== recording) rmSync(join(dir, name), { recursive: true, force: true });
}
