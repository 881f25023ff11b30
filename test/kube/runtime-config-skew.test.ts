// Real kube-apiservers, shape "runtime-config skew" (rolling out a --runtime-config change, the case
// KEP-4020 names beside upgrades): two servers of the newer release on one etcd, kube-a serving
// coordination.k8s.io/v1beta1 (LeaseCandidates, off by default), kube-b not; both with their own
// Mixed Version Proxy on. `peerscope serve --kubeconfig` pinned to kube-b, with the real kubectl.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OwnMvp } from '../../proxy-core/contract/index.js';
import { KUBECTL } from '../kubectl/kubectl.js';
import { kubeBinaries, skipKube } from './binaries.js';
import type { ControlPlane } from './control-plane.js';
import { aggregatedGvrs, compareDiscovery, DISCOVERY_ACCEPT } from './discovery-compare.js';
import { peerscope, startServe, type kubectl, type Serve } from './peerscope-cli.js';
import { track, waitFor } from './processes.js';
import { startRecorder } from './recorder.js';
import { candidate, GV, RESOURCE, reroutedCount, startSkewBed } from './runtime-config-skew-bed.js';
import { parseRouteHeader } from '../../proxy-core/engine/proxy/route-header.js';

describe.skipIf(skipKube())('real kube-apiservers, runtime-config skew (one serves coordination.k8s.io/v1beta1)', () => {
  let cp: ControlPlane;
  let serve: Serve;
  let dir: string;
  let names: Map<string, string>;
  let viaPort: ReturnType<typeof kubectl>;
  const release = kubeBinaries?.newer ?? '';

  beforeAll(async () => {
    ({ cp, names, dir, serve, viaPort } = await startSkewBed(release));
  });
  afterAll(async () => {
    await serve?.stop();
    await cp?.close();
  });

  it('servers --kubeconfig finds both real servers from their identity leases, with their release and their own MVP on', async () => {
    const r = await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-a'), '--output', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      servers: { name: string; url: string; release: string; health: string; foundBy: string; ownMvp?: OwnMvp }[];
      warnings: string[];
    };
    expect(out.warnings).toEqual([]);
    expect(out.servers.map((s) => [s.name, s.url, s.release, s.health, s.foundBy]).sort()).toEqual(
      ['kube-a', 'kube-b'].map((h) => [names.get(h), cp.server(h).url, release, 'ready', 'lease']).sort(),
    );
    for (const s of out.servers) {
      expect(s.ownMvp?.verdict, s.ownMvp?.summary).toBe('on');
      expect(s.ownMvp?.advertisedAddress).toBe(new URL(s.url).host);
      expect(s.ownMvp?.metrics.state).toBe('exposed');
    }
  });

  it('the real servers themselves: kube-b reroutes what it lacks to kube-a, unless the request says it was already proxied', async () => {
    const path = `/apis/${GV}/namespaces/default/leasecandidates`;
    // Its peer proxy knows what kube-a serves once its peer-discovery sync has run (seconds after start).
    const started = Date.now();
    const own = await waitFor(
      'kube-b proxies the LeaseCandidates list to kube-a itself',
      async () => {
        const r = await cp.call('kube-b', path);
        return r.status === 200 ? r : undefined;
      },
      60_000,
    );
    console.log(
      `kube-b's own MVP answered ${path} ${Date.now() - cp.server('kube-b').readyAt} ms after kube-b was ready (asked ${Date.now() - started} ms)`,
    );
    expect(own.json().kind).toBe('LeaseCandidateList');
    const already = await cp.call('kube-b', path, { headers: { 'x-kubernetes-peer-proxied': 'true' } });
    expect(already.status).toBe(404);
    const metrics = (await cp.call('kube-b', '/metrics')).text;
    expect(metrics).toMatch(
      /apiserver_rerouted_request_total\{code="200",group="coordination.k8s.io",resource="leasecandidates",version="v1beta1"\} [1-9]/,
    );
  });

  it('serve pinned to kube-b reroutes the GVR only kube-a serves, with x-kubernetes-peer-proxied: true; the object is really stored', async () => {
    writeFileSync(join(dir, 'probe.yaml'), candidate('upgrade-probe'));
    const created = await viaPort(['create', '-f', join(dir, 'probe.yaml')]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('leasecandidate.coordination.k8s.io/upgrade-probe created');
    const res = await request(`${serve.url}/apis/${GV}/namespaces/default/leasecandidates/upgrade-probe`);
    const body = (await res.body.json()) as { metadata: { uid: string } };
    expect(res.statusCode).toBe(200);
    expect(parseRouteHeader(String(res.headers['x-peerscope-route']))).toEqual({
      handling: names.get('kube-b'),
      answering: names.get('kube-a'),
      outcome: 'rerouted',
    });
    // Read back from kube-a directly: stored, the same object.
    const direct = await cp.call('kube-a', `/apis/${GV}/namespaces/default/leasecandidates/upgrade-probe`);
    expect(direct.status).toBe(200);
    expect(direct.json().metadata.uid).toBe(body.metadata.uid);
    // Sent to kube-a marked as proxied: kube-b never saw it, so its own counter for it did not move.
    const before = reroutedCount((await cp.call('kube-b', '/metrics')).text);
    await request(`${serve.url}/apis/${GV}/namespaces/default/leasecandidates`).then((r) => r.body.text());
    expect(reroutedCount((await cp.call('kube-b', '/metrics')).text)).toBe(before);
  });

  it('on the wire: the request Peerscope reroutes to kube-a carries x-kubernetes-peer-proxied: true; one kube-b serves itself does not', async () => {
    // A recording hop stands in for kube-a's address (--server overrides the found kube-a).
    const recorder = await startRecorder(cp, 'kube-a');
    const recorded = await startServe([
      '--kubeconfig',
      cp.kubeconfig('kube-b'),
      '--server',
      `${names.get('kube-a')}=${recorder.url}`,
      '--policy',
      `pin:${names.get('kube-b')}`,
      '--server-metrics',
      '0',
    ]);
    try {
      const res = await request(`${recorded.url}/apis/${GV}/namespaces/default/leasecandidates/upgrade-probe`);
      expect(res.statusCode).toBe(200);
      expect(((await res.body.json()) as { spec: { leaseName: string } }).spec.leaseName).toBe('upgrade-probe-lease');
      const sent = recorder.seen.filter((r) => r.path.startsWith(`/apis/${GV}/namespaces/default/leasecandidates`));
      expect(sent).toHaveLength(1);
      expect(sent[0]?.headers['x-kubernetes-peer-proxied']).toBe('true');
      // Peerscope's own reads of kube-a (readyz, version, discovery) are not proxied requests.
      expect(
        recorder.seen.filter((r) => r.path.startsWith('/readyz')).every((r) => r.headers['x-kubernetes-peer-proxied'] === undefined),
      ).toBe(true);
    } finally {
      await recorded.stop();
      await recorder.close();
    }
  });

  it('kubectl through the port: api-resources is the union; get, apply --server-side, get -w and delete work', async () => {
    const resources = await viaPort(['api-resources', '--no-headers', '-o', 'name']);
    expect(resources.code, resources.stderr).toBe(0);
    expect(resources.stdout.split('\n')).toContain('leasecandidates.coordination.k8s.io');
    const got = await viaPort(['get', RESOURCE, 'upgrade-probe', '-o', 'jsonpath={.spec.leaseName}']);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toBe('upgrade-probe-lease');

    writeFileSync(join(dir, 'probe-two.yaml'), candidate('upgrade-probe', 'two'));
    const applied = await viaPort([
      'apply',
      '--server-side',
      '--field-manager',
      'peerscope-test',
      '--force-conflicts',
      '-f',
      join(dir, 'probe-two.yaml'),
    ]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('serverside-applied');
    expect((await cp.call('kube-a', `/apis/${GV}/namespaces/default/leasecandidates/upgrade-probe`)).json().metadata.labels.step).toBe(
      'two',
    );

    // get -w through the port sees a create made straight on kube-a.
    const watch = spawn(
      KUBECTL,
      ['--kubeconfig', '/dev/null', '--server', serve.url, '--cache-dir', join(dir, 'cache'), 'get', RESOURCE, '-w', '-o', 'name'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    track(watch);
    let seen = '';
    watch.stdout.on('data', (c) => (seen += c));
    try {
      await waitFor('the watch lists the existing object', async () => (seen.includes('upgrade-probe') ? true : undefined), 20_000);
      const made = await cp.call('kube-a', `/apis/${GV}/namespaces/default/leasecandidates`, {
        method: 'POST',
        body: {
          apiVersion: GV,
          kind: 'LeaseCandidate',
          metadata: { name: 'watched' },
          spec: { leaseName: 'watched-lease', binaryVersion: '1.37.2', emulationVersion: '1.37.0', strategy: 'OldestEmulationVersion' },
        },
      });
      expect(made.status, made.text).toBe(201);
      await waitFor(
        'the watch sees the new object',
        async () => (seen.includes('leasecandidate.coordination.k8s.io/watched') ? true : undefined),
        20_000,
      );
    } finally {
      watch.kill('SIGTERM');
    }

    const deleted = await viaPort(['delete', RESOURCE, 'watched']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await cp.call('kube-a', `/apis/${GV}/namespaces/default/leasecandidates/watched`)).status).toBe(404);
  });

  it("a GVR nobody serves: the handling server's own 404, as kube-b answers it alone", async () => {
    const path = '/apis/coordination.k8s.io/v1alpha2/namespaces/default/leasecandidates';
    const res = await request(`${serve.url}${path}`);
    const text = await res.body.text();
    const direct = await cp.call('kube-b', path);
    console.log(
      `nobody serves ${path}: the port answered ${res.statusCode} ${res.headers['content-type']} ${JSON.stringify(text.trim())}; kube-b alone ${direct.status} ${JSON.stringify(direct.text.trim())}`,
    );
    expect(res.statusCode).toBe(404);
    expect(parseRouteHeader(String(res.headers['x-peerscope-route']))).toEqual({
      handling: names.get('kube-b'),
      answering: names.get('kube-b'),
      outcome: 'notfound',
    });
    expect(text).toBe(direct.text);
    const viaKubectl = await viaPort(['get', '--raw', path]);
    expect(viaKubectl.code).not.toBe(0);
    expect(viaKubectl.stderr).toContain('NotFound');
  });

  it("Peerscope's merged discovery against kube-b's own peer-aggregated discovery: the same groups, versions and resources", async () => {
    // kube-b's peer-aggregated document lists kube-a's extra group-version once its peer sync ran.
    const ownPeerAggregated = await waitFor(
      "kube-b's peer-aggregated discovery lists leasecandidates",
      async () => {
        const doc = (await cp.call('kube-b', '/apis', { headers: { accept: DISCOVERY_ACCEPT } })).json();
        return aggregatedGvrs(doc).has(`${GV}/leasecandidates`) ? doc : undefined;
      },
      60_000,
    );
    const res = await request(`${serve.url}/apis`, { headers: { accept: DISCOVERY_ACCEPT } });
    expect(res.headers['x-peerscope-route']).toContain('outcome=discovery-merged');
    const merged = await res.body.json();
    const diff = compareDiscovery(merged, ownPeerAggregated);
    console.log(
      `merged discovery (Peerscope) vs kube-b's own peer-aggregated /apis: ${diff.summary}\n${diff.details.map((d) => `  ${d}`).join('\n')}`,
    );
    expect(diff.onlyLeft).toEqual([]);
    expect(diff.onlyRight).toEqual([]);
  });

  it("each server's own reroutes are shown beside Peerscope's, in servers and /.peerscope/metrics; never a zero for what is not exposed", async () => {
    let last = '';
    const metrics = await waitFor(
      "serve read kube-b's own counters",
      async () => {
        last = await (await request(`${serve.url}/.peerscope/metrics`)).body.text();
        return /peerscope_apiserver_rerouted_request_total\{server="[^"]+",server_id="[^"]+",code="200",group="coordination.k8s.io",resource="leasecandidates",version="v1beta1"\} [1-9]/.test(
          last,
        )
          ? last
          : undefined;
      },
      30_000,
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}; /.peerscope/metrics:\n${last
          .split('\n')
          .filter((l) => l.includes('apiserver'))
          .join('\n')}\nserve: ${serve.stderr()}`,
      );
    });
    expect(metrics).toContain(`peerscope_apiserver_own_mvp{server="kube-b",server_id="${names.get('kube-b')}",verdict="on"} 1`);
    expect(metrics).toContain(
      `peerscope_apiserver_own_proxy_metrics{server="kube-b",server_id="${names.get('kube-b')}",state="exposed"} 1`,
    );
    // Peerscope's own routing counters sit beside them.
    expect(metrics).toMatch(/peerscope_requests_total\{outcome="rerouted",group="coordination.k8s.io"/);
    // A snapshot keeps each server's verdict and counters as they were.
    const snapshot = (await (await request(`${serve.url}/.peerscope/snapshot`)).body.json()) as {
      servers: { name: string; ownMvp?: OwnMvp }[];
    };
    const b = snapshot.servers.find((s) => s.name === names.get('kube-b'));
    expect(b?.ownMvp).toMatchObject({ verdict: 'on', featureGate: 'yes', peerCaFile: 'yes', metrics: { state: 'exposed' } });
    expect(b?.ownMvp?.metrics.reroutedTotal).toBeGreaterThan(0);
    const text = await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-b')]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/OWN MVP\s+REROUTED/);
    expect(text.stdout).toContain("kube-b's own Mixed Version Proxy is on");
    expect(text.stdout).toMatch(/its \/metrics counts [1-9]\d* rerouted request/);
    // A user RBAC does not let read /metrics: its counters are "forbidden", not zero.
    const viewer = JSON.parse(
      (await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-b', { user: 'viewer' }), '--output', 'json'])).stdout ||
        '{"servers":[]}',
    ) as { servers: { ownMvp?: OwnMvp }[]; warnings: string[] };
    console.log(
      `servers as a user without RBAC: ${JSON.stringify(viewer.warnings)}; servers ${viewer.servers.map((s) => s.ownMvp?.metrics.state).join(', ')}`,
    );
    for (const s of viewer.servers) expect(s.ownMvp?.metrics.state).not.toBe('exposed');
  });

  it('503 Status naming kube-a once the only server that serves the GVR is stopped', async () => {
    await cp.stop('kube-a');
    const res = await request(`${serve.url}/apis/${GV}/namespaces/default/leasecandidates`);
    const status = (await res.body.json()) as { kind: string; code: number; reason: string; message: string };
    console.log(`after kube-a stopped: ${res.statusCode} ${status.message}`);
    expect(res.statusCode).toBe(503);
    expect(status).toMatchObject({ kind: 'Status', code: 503, reason: 'ServiceUnavailable' });
    expect(status.message).toContain(names.get('kube-a'));
    const viaKubectl = await viaPort(['get', RESOURCE]);
    expect(viaKubectl.code).not.toBe(0);
    expect(viaKubectl.stderr).toMatch(/ServiceUnavailable|503|unavailable/i);
  });
});
