// Issue 32's faithful mode proved against the real thing: each client of the "Done when" run (a)
// straight against the older kube-apiserver with its own Mixed Version Proxy ON (a cluster of
// v-older + v-newer, --peer-ca-file and the rest) and (b) through a `--faithful` port pinned to the
// older server in front of servers whose own MVP is off, and the two outcomes held equal: success or
// failure, and what the client prints that matters (fields, the unknown field named, the object
// created, the group listed, the error). Two control planes run side by side, one per side; each is
// started once for the whole file. The side-by-side outcomes are printed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeBinaries, skipKube } from './binaries.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { aggregatedGvrs, compareDiscovery, DISCOVERY_ACCEPT } from './discovery-compare.js';
import {
  GADGET_CRD,
  CHART,
  client,
  ensureRegistered,
  GROUP,
  KIND_PATH,
  migration,
  portKubeconfig,
  run,
  skipWithout,
  until,
} from './every-client-harness.js';
import { kubectl, startServe, type Run, type Serve } from './peerscope-cli.js';

const NEW_ONLY = `${GROUP}/v1/storageversionmigrations`;
type Side = 'own' | 'faithful';

/** What a client run comes to: success or failure, and its output with blank lines and trailing spaces dropped. */
function outcome(r: Run): { ok: boolean; stdout: string; stderr: string } {
  const tidy = (s: string) =>
    s
      .split('\n')
      .map((l) => l.trimEnd())
      .filter((l) => l !== '')
      .join('\n');
  return { ok: r.code === 0, stdout: tidy(r.stdout), stderr: tidy(r.stderr) };
}

function sideBySide(what: string, own: Run, faithful: Run): void {
  const show = (r: Run) => `exit ${r.code}; ${(r.stderr.trim() || r.stdout.trim()).split('\n').slice(0, 4).join(' | ')}`;
  console.log(
    `${what}\n  straight to the older, its own MVP on: ${show(own)}\n  through --faithful (servers' MVP off):  ${show(faithful)}`,
  );
}

describe.skipIf(skipKube())('--faithful behaves as the older server with its own MVP on (real kube-apiservers, the older handling)', () => {
  /** Both servers' own MVP on: side (a). */
  let mvpOn: ControlPlane;
  /** Both servers' own MVP off, a --faithful port pinned to the older in front: side (b). */
  let mvpOff: ControlPlane;
  let faithful: Serve;
  let dir: string;
  let kubeconfigs: Record<Side, string>;
  const planes = (): Record<Side, ControlPlane> => ({ own: mvpOn, faithful: mvpOff });
  const older = kubeBinaries?.older ?? '';
  const newer = kubeBinaries?.newer ?? '';

  beforeAll(async () => {
    // Both planes use the namespace's first addresses, each on a secure port of its own.
    [mvpOn, mvpOff] = await Promise.all([
      startControlPlane({
        servers: [
          { host: 'kube-old', release: older, mvp: 'on' },
          { host: 'kube-new', release: newer, mvp: 'on' },
        ],
      }),
      startControlPlane({
        servers: [
          { host: 'kube-old', release: older, mvp: 'no-peer-ca' },
          { host: 'kube-new', release: newer, mvp: 'gate-off' },
        ],
      }),
    ]);
    const names = await mvpOff.leaseNames();
    faithful = await startServe(['--kubeconfig', mvpOff.kubeconfig('kube-old'), '--policy', `pin:${names.get('kube-old')}`, '--faithful']);
    dir = mkdtempSync(join(tmpdir(), 'kube-every-client-faithful-'));
    kubeconfigs = { own: mvpOn.kubeconfig('kube-old'), faithful: portKubeconfig(dir, 'faithful', faithful.url) };
    // Both sides must know the newer's kind from aggregated /apis before a client asks: the older's own
    // MVP learns it from its peer's discovery, the port from the servers'.
    await Promise.all([
      until(
        async () => {
          const doc = (await mvpOn.call('kube-old', '/apis', { headers: { accept: DISCOVERY_ACCEPT } })).json();
          return aggregatedGvrs(doc).has(NEW_ONLY) ? true : undefined;
        },
        `the older's own peer-aggregated /apis to list ${NEW_ONLY}`,
        120_000,
      ),
      until(async () => {
        const res = await request(`${faithful.url}/apis`, { headers: { accept: DISCOVERY_ACCEPT } });
        return aggregatedGvrs(await res.body.json()).has(NEW_ONLY) ? true : undefined;
      }, `the faithful port's /apis to list ${NEW_ONLY}`),
    ]);
  });
  afterAll(async () => {
    await faithful?.stop();
    await Promise.all([mvpOn?.close(), mvpOff?.close()]);
  });

  /** kubectl on each side, each with a cache of its own. */
  const onSide = (side: Side, cache: string) => kubectl({ kubeconfig: kubeconfigs[side] }, join(dir, `cache-${side}-${cache}`));
  const both = (cache: string, args: readonly string[]): Promise<[Run, Run]> =>
    Promise.all([onSide('own', cache)(args), onSide('faithful', cache)(args)]);

  it(`the --faithful port's aggregated /apis equals, order included, what ${newer || 'the newer'} with its own MVP on answers (P9 off)`, async () => {
    type Doc = { items: { metadata?: { name?: string }; versions: { version: string }[] }[] };
    const order = (doc: Doc) => doc.items.map((g) => `${g.metadata?.name ?? ''}: ${g.versions.map((v) => v.version).join(', ')}`);
    const own = (await mvpOn.call('kube-new', '/apis', { headers: { accept: DISCOVERY_ACCEPT } })).json() as Doc;
    const port = (await (await request(`${faithful.url}/apis`, { headers: { accept: DISCOVERY_ACCEPT } })).body.json()) as Doc;
    const diff = compareDiscovery(port, own, ['--faithful port', `${newer}, own MVP on`]);
    console.log(`--faithful port vs ${newer}'s own peer-aggregated /apis: ${diff.summary}${diff.details.map((d) => `\n  ${d}`).join('')}`);
    expect(diff.onlyLeft).toEqual([]);
    expect(diff.onlyRight).toEqual([]);
    expect(order(port)).toEqual(order(own));
    expect(diff.details).toEqual([]);
  });

  it.each([
    ['OpenAPI v3', []],
    ['OpenAPI v2', ['--output=plaintext-openapiv2']],
  ])(`kubectl explain (%s) of a kind only ${newer || 'the newer'} serves: the same outcome`, async (_, extra) => {
    const [own, faithfulRun] = await both('explain', ['explain', 'storageversionmigrations.spec', ...extra]);
    sideBySide(`kubectl explain storageversionmigrations.spec ${extra.join(' ')}`, own, faithfulRun);
    expect(outcome(faithfulRun)).toEqual(outcome(own));
    // The servers' own MVP merges the kind into /apis but leaves OpenAPI the older's own: kubectl knows
    // the kind and finds no schema for it (issue 32's failure), on both sides.
    expect(own.code).not.toBe(0);
    expect(own.stderr).toMatch(
      new RegExp(`^error: couldn't find resource for "${GROUP}/v1, (Resource=storageversionmigrations|Kind=StorageVersionMigration)"`),
    );
  });

  it('kubectl apply --validate=strict: the unknown field refused naming it, and without it the object created, on both', async () => {
    const bad = join(dir, 'bad.yaml');
    const good = join(dir, 'good.yaml');
    writeFileSync(bad, migration('strict-bad').replace('spec:\n', 'spec:\n  typoField: true\n'));
    writeFileSync(good, migration('strict-good'));
    const [ownBad, faithfulBad] = await both('apply', ['apply', '--validate=strict', '-f', bad]);
    sideBySide('kubectl apply --validate=strict (spec.typoField)', ownBad, faithfulBad);
    expect(outcome(faithfulBad)).toEqual(outcome(ownBad));
    expect(ownBad.code).not.toBe(0);
    // The kind is missing from the older's OpenAPI, so kubectl's client-side check skips it; the create
    // is rerouted (R8) and the newer server refuses the field itself.
    expect(ownBad.stderr).toContain('unknown field "spec.typoField"');
    const [ownGood, faithfulGood] = await both('apply', ['apply', '--validate=strict', '-f', good]);
    sideBySide('kubectl apply --validate=strict (no unknown field)', ownGood, faithfulGood);
    expect(outcome(faithfulGood)).toEqual(outcome(ownGood));
    expect(ownGood.stdout).toContain('storageversionmigration.storagemigration.k8s.io/strict-good created');
    for (const [side, cp] of Object.entries(planes())) {
      const [badThere, goodThere] = await Promise.all([
        cp.call('kube-new', `${KIND_PATH}/strict-bad`),
        cp.call('kube-new', `${KIND_PATH}/strict-good`),
      ]);
      expect([side, badThere.status, goodThere.status]).toEqual([side, 404, 200]);
    }
  });

  it.skipIf(skipWithout('helm'))('helm install of a chart holding such a kind: the same outcome, the object the same', async () => {
    const helm = client('helm') as string;
    const [own, faithfulRun] = (await Promise.all(
      (['own', 'faithful'] as const).map((side) => {
        const home = mkdtempSync(join(tmpdir(), `helm-home-${side}-`));
        const helmEnv = {
          HELM_CACHE_HOME: join(home, 'cache'),
          HELM_CONFIG_HOME: join(home, 'config'),
          HELM_DATA_HOME: join(home, 'data'),
        };
        return run(helm, ['install', 'chart', CHART, '--kubeconfig', kubeconfigs[side], '--namespace', 'default'], helmEnv);
      }),
    )) as [Run, Run];
    sideBySide('helm install', own, faithfulRun);
    // Helm prints when it deployed: compare the rest.
    const essential = (r: Run) => ({ ...outcome(r), stdout: outcome(r).stdout.replace(/^LAST DEPLOYED: .*$/m, 'LAST DEPLOYED: …') });
    expect(essential(faithfulRun)).toEqual(essential(own));
    const there = await Promise.all(
      Object.values(planes()).map(async (cp) => (await cp.call('kube-new', `${KIND_PATH}/chart-migration`)).status),
    );
    expect(own.stdout).toMatch(/STATUS: deployed/);
    expect(there).toEqual([200, 200]);
  });

  it.skipIf(skipWithout('legacy-discovery'))('a client-go program doing legacy discovery: the same list and the same error', async () => {
    const program = client('legacy-discovery') as string;
    // The kind's registration as a cluster has it once the newer server has run: present on both.
    await Promise.all([ensureRegistered(mvpOn), ensureRegistered(mvpOff)]);
    const [own, faithfulRun] = await Promise.all([
      run(program, ['--kubeconfig', kubeconfigs.own]),
      run(program, ['--kubeconfig', kubeconfigs.faithful]),
    ]);
    sideBySide(`legacy discovery (${own.stdout.split('\n').length} and ${faithfulRun.stdout.split('\n').length} lines)`, own, faithfulRun);
    expect(outcome(faithfulRun)).toEqual(outcome(own));
    // The older's legacy /apis lists the group (its APIService is in etcd); /apis/G/V is a 404 there,
    // and the servers' own MVP does not reroute discovery: kubernetes/kubernetes#96486 on both sides.
    expect(own.stdout).not.toContain(`${GROUP}/v1`);
    expect(own.stderr).toContain(`unable to retrieve the complete list of server APIs: ${GROUP}/v1`);
  });

  it('kubectl api-resources after a CRD is created straight on the newer server: the same list, the CRD in it', async () => {
    for (const cp of Object.values(planes())) {
      const posted = await cp.call('kube-new', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        method: 'POST',
        body: GADGET_CRD,
      });
      expect(posted.status, posted.text).toBe(201);
    }
    // Each side lists it once its discovery has it (the servers' own read is theirs to time; the port's is within 2 s).
    const listed = await Promise.all(
      (['own', 'faithful'] as const).map((side) =>
        until(async () => {
          const r = await kubectl(
            { kubeconfig: kubeconfigs[side] },
            join(dir, `cache-${side}-crd-${Date.now()}`),
          )(['api-resources', '--no-headers', '-o', 'name']);
          return r.code === 0 && r.stdout.split('\n').includes('gadgets.fresh.example.io') ? r : undefined;
        }, `kubectl api-resources (${side}) to list gadgets.fresh.example.io`),
      ),
    );
    const [own, faithfulRun] = listed as [Run, Run];
    const sorted = (r: Run) => r.stdout.split('\n').filter(Boolean).sort();
    const summary = (r: Run) =>
      `exit ${r.code}; ${sorted(r).length} resources, gadgets.fresh.example.io ${sorted(r).includes('gadgets.fresh.example.io') ? '' : 'not '}listed`;
    console.log(
      `kubectl api-resources -o name\n  straight to the older, its own MVP on: ${summary(own)}\n  through --faithful (servers' MVP off):  ${summary(faithfulRun)}`,
    );
    expect(sorted(faithfulRun)).toEqual(sorted(own));
    expect(sorted(own)).toContain('storageversionmigrations.storagemigration.k8s.io');
  });
});
