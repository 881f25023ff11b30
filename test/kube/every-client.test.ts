// Issue 32's "Done when", on real kube-apiservers of two releases sharing one etcd, their own MVP
// off, the older pinned as the handling server: clients that read more than aggregated /apis —
// kubectl explain (OpenAPI v3), kubectl apply --validate=strict, Helm, a client-go program doing
// legacy discovery — work through the port on a kind only the newer release serves; a CRD created
// straight on a server is seen through the port within 2 s. What --faithful does beside an MVP-off
// older server is printed here; that it matches the older server with its own MVP on is proved in
// every-client-faithful.test.ts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeBinaries, skipKube } from './binaries.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { aggregatedGvrs, DISCOVERY_ACCEPT } from './discovery-compare.js';
import {
  GADGET_CRD,
  API_SERVICE,
  CHART,
  client,
  ensureRegistered as registered,
  GROUP,
  KIND_PATH,
  migration,
  portKubeconfig,
  run,
  skipWithout,
  until,
} from './every-client-harness.js';
import { kubectl, peerscope, startServe, type Serve } from './peerscope-cli.js';
import { multiVersionResources, versionRequested } from './version-picks.js';

/** "resource.group" of every listable resource a document lists. */
function aggregatedResources(doc: unknown): string[] {
  return [...aggregatedGvrs(doc)].flatMap((key) => {
    const [group, , resource] = key.split('/');
    return group && resource && key.split('/').length === 3 ? [`${resource}.${group}`] : [];
  });
}
import { parseRouteHeader } from '../../proxy-core/engine/proxy/route-header.js';

describe.skipIf(skipKube())('every client through the port: real kube-apiservers of two releases, the older handling', () => {
  let cp: ControlPlane;
  let dir: string;
  let names: Map<string, string>;
  let port: Serve;
  let faithful: Serve;
  /** Run a client three ways: through the port, through the port with --faithful, straight to the older server. */
  let kubeconfigs: { port: string; faithful: string; older: string };
  const older = kubeBinaries?.older ?? '';
  const newer = kubeBinaries?.newer ?? '';

  beforeAll(async () => {
    cp = await startControlPlane({
      servers: [
        { host: 'kube-old', release: older, mvp: 'no-peer-ca' },
        { host: 'kube-new', release: newer, mvp: 'gate-off' },
      ],
    });
    names = await cp.leaseNames();
    dir = mkdtempSync(join(tmpdir(), 'kube-every-client-'));
    const pin = ['--kubeconfig', cp.kubeconfig('kube-old'), '--policy', `pin:${names.get('kube-old')}`];
    [port, faithful] = await Promise.all([startServe(pin), startServe([...pin, '--faithful'])]);
    kubeconfigs = {
      port: portKubeconfig(dir, 'port', port.url),
      faithful: portKubeconfig(dir, 'faithful', faithful.url),
      older: cp.kubeconfig('kube-old'),
    };
  });
  afterAll(async () => {
    await port?.stop();
    await faithful?.stop();
    await cp?.close();
  });

  const ensureRegistered = () => registered(cp);

  const k = (via: keyof typeof kubeconfigs, cache: string) => kubectl({ kubeconfig: kubeconfigs[via] }, join(dir, `cache-${via}-${cache}`));

  it(`kubectl explain of a kind only ${newer || 'the newer'} serves prints its fields; with --faithful it fails as the servers' own MVP does`, async () => {
    const through = await k('port', 'explain')(['explain', 'storageversionmigrations.spec']);
    console.log(`explain through the port: exit ${through.code}\n${through.stdout.split('\n').slice(0, 12).join('\n')}`);
    expect(through.code, through.stderr).toBe(0);
    expect(through.stdout).toMatch(/KIND:\s+StorageVersionMigration/);
    expect(through.stdout).toMatch(/^\s+resource\s+<GroupResource> -required-/m);
    const [straight, faithfulRun] = await Promise.all([
      k('older', 'explain')(['explain', 'storageversionmigrations.spec']),
      k('faithful', 'explain')(['explain', 'storageversionmigrations.spec']),
    ]);
    console.log(
      `explain straight to the older: exit ${straight.code}: ${straight.stderr.trim()}\nwith --faithful: exit ${faithfulRun.code}: ${faithfulRun.stderr.trim()}`,
    );
    // Straight to the older the kind is unknown; with --faithful (the servers' own MVP) kubectl knows
    // the kind from the peer-aggregated /apis but finds no OpenAPI for it: issue 32's failure exactly.
    expect(straight.code).not.toBe(0);
    expect(straight.stderr).toContain(`the server doesn't have a resource type "storageversionmigrations"`);
    expect(faithfulRun.code).not.toBe(0);
    expect(faithfulRun.stderr.trim()).toBe(`error: couldn't find resource for "${GROUP}/v1, Resource=storageversionmigrations"`);
  });

  it('kubectl through the port asks every resource served in more than one version in the version it asks straight of the newer (P9, issue 45)', async () => {
    const merged = (await (await request(`${port.url}/apis`, { headers: { accept: DISCOVERY_ACCEPT } })).body.json()) as unknown;
    const newOwn = (await cp.call('kube-new', '/apis', { headers: { accept: `${DISCOVERY_ACCEPT};profile=nopeer` } })).json();
    const servedByNewer = new Set(aggregatedResources(newOwn));
    const resources = [...multiVersionResources(merged)].filter(([name]) => servedByNewer.has(name));
    expect(resources.length).toBeGreaterThan(0);
    const straight = kubectl({ kubeconfig: cp.kubeconfig('kube-new') }, join(dir, 'cache-newer-versions'));
    const rows: string[] = [];
    const mismatches: string[] = [];
    for (const [name, versions] of resources) {
      const args = ['get', name, '-A', '-o', 'name', '-v=6'];
      const [through, direct] = await Promise.all([k('port', 'versions')(args), straight(args)]);
      const [viaPort, viaNewer] = [versionRequested(through.stderr, name), versionRequested(direct.stderr, name)];
      rows.push(`${name}: through the port ${viaPort}, straight to ${newer} ${viaNewer} (merged lists ${versions.join(', ')})`);
      if (viaPort === undefined || viaPort !== viaNewer) mismatches.push(name);
    }
    console.log(`kubectl get -v=6, the port pinned to ${older}:\n${rows.join('\n')}`);
    expect(mismatches).toEqual([]);
  });

  it('kubectl apply --validate=strict refuses an unknown field naming it, and creates the object without it', async () => {
    const bad = join(dir, 'bad.yaml');
    const good = join(dir, 'good.yaml');
    writeFileSync(bad, migration('strict-bad', '  unknownField: 1\n').replace('spec:\n', 'spec:\n  typoField: true\n'));
    writeFileSync(good, migration('strict-good'));
    const refused = await k('port', 'apply')(['apply', '--validate=strict', '-f', bad]);
    console.log(`apply --validate=strict of an unknown field through the port: exit ${refused.code}: ${refused.stderr.trim()}`);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('typoField');
    expect((await cp.call('kube-new', `${KIND_PATH}/strict-bad`)).status).toBe(404);
    const created = await k('port', 'apply')(['apply', '--validate=strict', '-f', good]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('storageversionmigration.storagemigration.k8s.io/strict-good created');
    expect((await cp.call('kube-new', `${KIND_PATH}/strict-good`)).status).toBe(200);
    // Straight to the older server the kind is unknown to kubectl; --faithful shows what the servers' own MVP would.
    const [straight, faithfulRun] = await Promise.all([
      k('older', 'apply')(['apply', '--validate=strict', '-f', bad]),
      k('faithful', 'apply')(['apply', '--validate=strict', '-f', bad]),
    ]);
    console.log(
      `apply --validate=strict of the unknown field straight to the older: exit ${straight.code}: ${straight.stderr.trim()}\nwith --faithful: exit ${faithfulRun.code}: ${faithfulRun.stderr.trim()}`,
    );
    expect(straight.code).not.toBe(0);
    expect(straight.stderr).toContain(`no matches for kind "StorageVersionMigration" in version "${GROUP}/v1"`);
    // With --faithful the request is still rerouted (R8) and the newer server refuses the field itself.
    expect(faithfulRun.code).not.toBe(0);
    expect(faithfulRun.stderr).toContain('unknown field "spec.typoField"');
  });

  it.skipIf(skipWithout('helm'))('helm install of a chart holding such a kind deploys it', async () => {
    const helm = client('helm') as string;
    const home = mkdtempSync(join(tmpdir(), 'helm-home-'));
    const helmEnv = { HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') };
    const installed = await run(helm, ['install', 'viaport', CHART, '--kubeconfig', kubeconfigs.port, '--namespace', 'default'], helmEnv);
    console.log(`helm install through the port: exit ${installed.code}\n${installed.stdout}${installed.stderr}`);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toMatch(/STATUS: deployed/);
    expect((await cp.call('kube-new', `${KIND_PATH}/viaport-migration`)).status).toBe(200);
    const [straight, faithfulRun] = await Promise.all([
      run(helm, ['install', 'straight', CHART, '--kubeconfig', kubeconfigs.older, '--namespace', 'default'], helmEnv),
      run(helm, ['install', 'faithful', CHART, '--kubeconfig', kubeconfigs.faithful, '--namespace', 'default'], helmEnv),
    ]);
    console.log(
      `helm install straight to the older: exit ${straight.code}: ${straight.stderr.trim()}\nwith --faithful: exit ${faithfulRun.code}: ${faithfulRun.stderr.trim()}`,
    );
    expect(straight.code).not.toBe(0);
    expect(straight.stderr).toContain(`no matches for kind "StorageVersionMigration" in version "${GROUP}/v1"`);
    // Helm maps kinds from aggregated /apis, which the servers' own MVP merges too: --faithful deploys it as well.
    expect(faithfulRun.code, faithfulRun.stderr).toBe(0);
    expect((await cp.call('kube-new', `${KIND_PATH}/faithful-migration`)).status).toBe(200);
  });

  it.skipIf(skipWithout('legacy-discovery'))(
    'a client-go program doing legacy discovery lists the kind with no error; with --faithful it lists what the older lists',
    async () => {
      const program = client('legacy-discovery') as string;
      await ensureRegistered();
      const through = await run(program, ['--kubeconfig', kubeconfigs.port]);
      expect(through.code, through.stderr).toBe(0);
      expect(through.stderr).toBe('');
      expect(through.stdout.split('\n')).toContain(`${GROUP}/v1 storageversionmigrations`);
      const [straight, faithfulRun] = await Promise.all([
        run(program, ['--kubeconfig', kubeconfigs.older]),
        run(program, ['--kubeconfig', kubeconfigs.faithful]),
      ]);
      console.log(
        `legacy discovery: through the port ${through.stdout.split('\n').length} lines; straight to the older ${straight.stdout.split('\n').length} lines, exit ${straight.code}; with --faithful ${faithfulRun.stdout.split('\n').length} lines, exit ${faithfulRun.code}`,
      );
      // The older's legacy /apis lists the group (its APIService is in etcd) but /apis/G/V is a 404 there:
      // kubernetes/kubernetes#96486. --faithful answers the same, as the servers' own MVP does.
      console.log(`straight to the older: ${straight.stderr.trim()}`);
      expect(straight.stdout).not.toContain(`${GROUP}/v1`);
      expect(straight.stderr).toContain('unable to retrieve the complete list of server APIs');
      expect(straight.stderr).toContain(`${GROUP}/v1`);
      expect({ code: faithfulRun.code, stdout: faithfulRun.stdout, stderr: faithfulRun.stderr }).toEqual({
        code: straight.code,
        stdout: straight.stdout,
        stderr: straight.stderr,
      });
    },
  );

  it('a CRD created straight on a server is listed through the port within 2 s (and with --faithful), and its first request is labelled local', async () => {
    const posted = await cp.call('kube-new', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      method: 'POST',
      body: GADGET_CRD,
    });
    expect(posted.status, posted.text).toBe(201);
    const established = await until(async () => {
      const c = (await cp.call('kube-new', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.fresh.example.io')).json() as {
        status?: { conditions?: { type: string; status: string }[] };
      };
      return c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True') ? Date.now() : undefined;
    }, 'the CRD to be Established');
    const listed = async (url: string) => {
      const res = await request(`${url}/apis`, { headers: { accept: DISCOVERY_ACCEPT } });
      const doc = (await res.body.json()) as unknown;
      return aggregatedGvrs(doc).has('fresh.example.io/v1/gadgets') ? Date.now() : undefined;
    };
    const [atPort, atFaithful] = await Promise.all([
      until(() => listed(port.url), 'the CRD in the port’s /apis', 30_000),
      until(() => listed(faithful.url), 'the CRD in the faithful port’s /apis', 30_000),
    ]);
    console.log(
      `CRD Established → in the port's merged /apis: ${atPort - established} ms; with --faithful: ${atFaithful - established} ms`,
    );
    expect(atPort - established).toBeLessThanOrEqual(2_000);
    expect(atFaithful - established).toBeLessThanOrEqual(2_000);
    const resources = await k('port', 'crd')(['api-resources', '--no-headers', '-o', 'name']);
    expect(resources.code, resources.stderr).toBe(0);
    expect(resources.stdout.split('\n')).toContain('gadgets.fresh.example.io');
    const res = await request(`${port.url}/apis/fresh.example.io/v1/namespaces/default/gadgets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'fresh.example.io/v1', kind: 'Gadget', metadata: { name: 'first' } }),
    });
    await res.body.text();
    expect(res.statusCode).toBe(201);
    // The header shows the host name, the identity (lease name) beside it: read back as identities.
    expect(parseRouteHeader(String(res.headers['x-peerscope-route']))).toEqual({
      handling: names.get('kube-old'),
      answering: names.get('kube-old'),
      outcome: 'local',
    });
    // Deleted: gone from the port's discovery as fast.
    expect(
      (await cp.call('kube-new', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.fresh.example.io', { method: 'DELETE' }))
        .status,
    ).toBe(200);
    const gone = await until(
      async () => ((await listed(port.url)) === undefined ? Date.now() : undefined),
      'the CRD to leave the port’s /apis',
    );
    console.log(`CRD deleted → gone from the port's merged /apis after ${gone - established} ms since it was established`);
  });

  it('a user RBAC does not let watch CRDs: serve says so in one line per watch and keeps the periodic re-read', async () => {
    const viewer = await startServe(['--kubeconfig', cp.kubeconfig('kube-old', { user: 'viewer' })]);
    try {
      await until(
        async () =>
          /cannot watch apiservices/.test(viewer.stderr()) && /cannot watch customresourcedefinitions/.test(viewer.stderr())
            ? true
            : undefined,
        'the two lines',
        30_000,
      );
      const lines = viewer
        .stderr()
        .split('\n')
        .filter((l) => l.includes('cannot watch'));
      console.log(lines.join('\n'));
      expect(lines).toHaveLength(2);
      expect(lines.find((l) => l.includes('customresourcedefinitions'))).toMatch(
        /^peerscope: cannot watch customresourcedefinitions through \S+ \(HTTP 403: customresourcedefinitions\.apiextensions\.k8s\.io is forbidden: User "token-viewer" cannot list resource .*\); their changes show in discovery at the periodic re-read \(every 30 s\)$/,
      );
    } finally {
      await viewer.stop();
    }
  });

  it('servers names a group served by a server whose APIService is gone (as an older server removes it at start-up); the port still lists it', async () => {
    await ensureRegistered();
    // Issue 44: with every registration in place nothing is missing (apiregistration.k8s.io, which no APIService names, included).
    const healthy = JSON.parse((await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-old'), '--output', 'json'])).stdout) as {
      missingRegistrations: unknown[];
    };
    expect(healthy.missingRegistrations).toEqual([]);
    // What kube-apiserver v1.36 does at its start-up while a v1.37 server runs: delete the APIService
    // of a group it does not serve.
    const removed = await cp.call('kube-new', API_SERVICE, { method: 'DELETE' });
    expect(removed.status, removed.text).toBe(200);
    const newApis = (await cp.call('kube-new', '/apis', { headers: { accept: `${DISCOVERY_ACCEPT};profile=nopeer` } })).json();
    const legacy = (await cp.call('kube-new', '/apis', { headers: { accept: 'application/json' } })).json() as {
      groups: { name: string }[];
    };
    // Seen on these releases: the newer's aggregated discovery keeps the group, its legacy /apis drops it.
    expect(aggregatedGvrs(newApis).has(`${GROUP}/v1/storageversionmigrations`)).toBe(true);
    expect(legacy.groups.map((g) => g.name)).not.toContain(GROUP);
    // The older's legacy /apis (its aggregator's own copy of the registrations) drops it too.
    await until(async () => {
      const old = (await cp.call('kube-old', '/apis', { headers: { accept: 'application/json' } })).json() as {
        groups: { name: string }[];
      };
      return old.groups.some((g) => g.name === GROUP) ? undefined : true;
    }, `the older's legacy /apis to drop ${GROUP}`);
    const json = JSON.parse((await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-old'), '--output', 'json'])).stdout) as {
      missingRegistrations: { group: string; versions: string[]; servedBy: string[]; missingFrom?: string[]; removedBy?: string }[];
    };
    const newName = new URL(cp.server('kube-new').url).host;
    expect(json.missingRegistrations.map((m) => m.group)).toEqual([GROUP]);
    expect(json.missingRegistrations[0]).toMatchObject({ versions: ['v1'], servedBy: [newName], removedBy: names.get('kube-old') });
    expect(json.missingRegistrations[0]?.missingFrom?.sort()).toEqual([newName, names.get('kube-old')].sort());
    const text = await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-old')]);
    const line = text.stdout.split('\n').find((l) => l.startsWith(`missing API registration: ${GROUP}`));
    console.log(line);
    expect(line).toMatch(
      new RegExp(
        `^missing API registration: ${GROUP.replace(/\./g, '\\.')} \\(v1\\) is served by ${newName}, but legacy discovery \\(GET /apis\\) straight to .+ does not list it: its registration \\(APIService v1\\.${GROUP.replace(/\./g, '\\.')}\\) is missing, probably deleted by kube-old, which does not serve the group`,
      ),
    );
    // The port's legacy /apis comes from what each server serves: its clients keep the group.
    const viaPort = await request(`${port.url}/apis`, { headers: { accept: 'application/json' } });
    expect(((await viaPort.body.json()) as { groups: { name: string }[] }).groups.map((g) => g.name)).toContain(GROUP);
    const program = client('legacy-discovery');
    if (program) {
      const [through, straightNew] = await Promise.all([
        run(program, ['--kubeconfig', kubeconfigs.port]),
        run(program, ['--kubeconfig', cp.kubeconfig('kube-new')]),
      ]);
      expect(through.stdout.split('\n')).toContain(`${GROUP}/v1 storageversionmigrations`);
      expect(straightNew.stdout).not.toContain(`${GROUP}/v1`);
    }
  });
});
