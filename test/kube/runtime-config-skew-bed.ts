// The "runtime-config skew" shape's setup and data, for runtime-config-skew.test.ts: the LeaseCandidate
// group-version only kube-a serves, a manifest for one, the servers' own reroute counter, and the
// control plane (kube-a with the group-version on, kube-b without) with `peerscope serve` pinned to kube-b.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { kubectl, startServe, type Serve } from './peerscope-cli.js';

export const GV = 'coordination.k8s.io/v1beta1';
export const RESOURCE = 'leasecandidates.v1beta1.coordination.k8s.io';
export const candidate = (name: string, label = 'one') => `apiVersion: ${GV}
kind: LeaseCandidate
metadata:
  name: ${name}
  namespace: default
  labels: {step: "${label}"}
spec:
  leaseName: ${name}-lease
  binaryVersion: "1.37.2"
  emulationVersion: "1.37.0"
  strategy: OldestEmulationVersion
`;

/** kube-b's own count of the LeaseCandidate lists it rerouted with a 200, from its /metrics text. */
export function reroutedCount(metrics: string): number {
  const m =
    /apiserver_rerouted_request_total\{code="200",group="coordination.k8s.io",resource="leasecandidates",version="v1beta1"\} (\d+)/.exec(
      metrics,
    );
  return m ? Number(m[1]) : 0;
}

export interface SkewBed {
  cp: ControlPlane;
  names: Map<string, string>;
  dir: string;
  serve: Serve;
  viaPort: ReturnType<typeof kubectl>;
}

/** One control plane for the file: kube-a serving the group-version, kube-b not, and serve pinned to kube-b. */
export async function startSkewBed(release: string): Promise<SkewBed> {
  const cp = await startControlPlane({
    servers: [
      { host: 'kube-a', release, runtimeConfig: `${GV}=true` },
      { host: 'kube-b', release },
    ],
  });
  try {
    const names = await cp.leaseNames();
    const dir = mkdtempSync(join(tmpdir(), 'kube-skew-'));
    const serve = await startServe([
      '--kubeconfig',
      cp.kubeconfig('kube-b'),
      '--policy',
      `pin:${names.get('kube-b')}`,
      '--server-metrics',
      '1',
      '--server-refresh',
      '2',
    ]);
    return { cp, names, dir, serve, viaPort: kubectl({ server: serve.url }, join(dir, 'cache')) };
  } catch (err) {
    // The file's afterAll never sees a control plane this call did not return.
    await cp.close();
    throw err;
  }
}
