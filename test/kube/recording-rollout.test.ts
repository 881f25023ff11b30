// A real rollout, recorded (issue 42): two kube-apiservers of the older release on one etcd, each
// writing an audit log; kube-1's log is followed by `serve --record` (the built CLI), kube-2 also
// posts its events to serve's audit webhook receiver. Real clients (kubectl, plain HTTPS clients)
// send requests through the port and straight to the servers; then each server in turn is stopped
// and comes back at the newer release on the same machine (address and hostname: the same identity).
// While the releases are mixed, the clients straight to the servers ask each for what only the other
// serves: false 404s. The recording must then agree with the live port (false 404s per client and
// server, requests through the port), hold each server's discovery as it was before the first upgrade
// (the GVR matrix then; and while mixed, and after), put each release change within 2 s of when the
// server's /version changed as this test saw it, and — once serve is SIGKILLed under traffic — hold
// every event the servers' audit logs have up to a second before the kill (and all the port itself
// had counted by then), and reopen. `recording open` and the report name each server by its host name
// with its identity lease's name beside it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingReader } from '../../proxy-core/engine/recording/reader.js';
import type { RecordingReport } from '../../proxy-core/engine/recording/report.js';
import { stateAt } from '../../proxy-core/engine/recording/state-at.js';
import { hasKubectl, KUBECTL } from '../kubectl/kubectl.js';
import { kubeBinaries, skipKube } from './binaries.js';
import { serverIps, startControlPlane, type ApiserverSpec, type ControlPlane } from './control-plane.js';
import { kubectl, peerscope } from './peerscope-cli.js';
import { waitFor } from './processes.js';
import {
  clipWindows,
  killCheck,
  killLine,
  liveCounts,
  recordedCounts,
  recordedTotals,
  sameCounts,
  sampleTotals,
  shown,
  sorted,
} from './recording-rollout-counts.js';
import {
  AUDIT_POLICY,
  clientLoop,
  startRecordingServe,
  watchVersion,
  webhookBed,
  type ClientLoop,
  type RecordingServe,
  type VersionWatch,
} from './recording-rollout-bed.js';
import { servedGvrs, type ServedGvr } from './served-gvrs.js';
import { ensureTestNetwork } from './test-network.js';

const HOSTS = ['kube-1', 'kube-2'] as const;
/** How long the releases run side by side after the first server's upgrade: where the false 404s happen. */
const MIXED_MS = 6_000;
/** A server still holding watches takes its whole grace to exit (the kubelet's default is 30 s). */
const STOP_GRACE_MS = 5_000;
const CHECKER = 'rollout-checker/v1.0';
const PORT_READER = 'port-reader/v2.1';
/** The largest lag allowed between a server's /version changing and the recording's release change. */
const RELEASE_LAG_MS = 2_000;

/** kubectl is one of the real clients here: without it the file skips, saying so. */
function noKubectl(): boolean {
  if (!hasKubectl) console.log(`skipping the recorded rollout: no ${KUBECTL}`);
  return !hasKubectl;
}

describe.skipIf(skipKube() || noKubectl())(
  'a real rollout recorded by serve --record: the file agrees with the live port and the servers',
  () => {
    const older = kubeBinaries?.older ?? '';
    const newer = kubeBinaries?.newer ?? '';
    const started = Date.now();
    let cp: ControlPlane;
    let dir: string;
    let serve: RecordingServe;
    let recordFile: string;
    let names: Map<string, string>;
    const logs = new Map<string, string>();
    const watches = new Map<string, VersionWatch>();
    const loops: ClientLoop[] = [];
    /** A moment before the first server was stopped, and what each server served then (its own discovery). */
    let beforeUpgrade = 0;
    const servedBefore = new Map<string, Set<string>>();
    /** The same while the releases were mixed (kube-1 upgraded) and after the rollout. */
    const moments: { what: string; at: number; served: Map<string, Set<string>>; releases: Map<string, string> }[] = [];
    const keysOf = (m: Map<string, ServedGvr>) => new Set(m.keys());
    let spec: (host: string, release: string) => ApiserverSpec;
    /**
     * When every event kube-2 wrote reached serve's receiver: from after its first batch arrived (those
     * before serve listened were dropped) on — less, when its older process had to be killed after its
     * grace, the time from its stop to its replacement's start (its last batch may have died with it).
     */
    const webhookWindows: [number, number][] = [];
    const steps: string[] = [];
    /** Each server's replacement: when its older process was sent SIGTERM, and when the newer one was ready. */
    const replaced = new Map<string, { stopAt: number; readyAt: number }>();

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'kube-recording-rollout-'));
      const policyFile = join(dir, 'audit-policy.yaml');
      writeFileSync(policyFile, AUDIT_POLICY);
      ensureTestNetwork(serverIps(HOSTS.length));
      const bed = await webhookBed(dir);
      const webhookConfigFile = bed.kubeconfig('kube-2');
      for (const h of HOSTS) logs.set(h, join(dir, `${h}-audit.log`));
      // Beta APIs on, so that each release serves something the other does not; their own MVP off (as kubeadm sets them up).
      spec = (host, release) => ({
        host,
        release,
        mvp: 'no-peer-ca',
        runtimeConfig: 'api/beta=true',
        audit: { policyFile, logFile: logs.get(host) as string, ...(host === 'kube-2' ? { webhookConfigFile } : {}) },
      });
      cp = await startControlPlane({ servers: HOSTS.map((h) => spec(h, older)) });
      names = await cp.leaseNames();
      for (const h of HOSTS) watches.set(h, watchVersion(cp, cp.server(h).url));
      recordFile = join(dir, 'rollout.recording.sqlite');
      serve = await startRecordingServe([
        '--kubeconfig',
        cp.kubeconfig('kube-1'),
        '--record',
        recordFile,
        '--audit-log',
        `${names.get('kube-1')}=${logs.get('kube-1')}`,
        '--audit-webhook-listen',
        bed.listen,
        '--audit-webhook-cert',
        bed.certFile,
        '--audit-webhook-key',
        bed.keyFile,
        '--audit-webhook-token',
        `${names.get('kube-2')}=${bed.tokenFile('kube-2')}`,
      ]);
      await waitFor(
        "a batch from kube-2 at serve's audit webhook receiver",
        async () =>
          (await (await fetch(`${serve.url}/.peerscope/metrics`)).text()).includes(
            `peerscope_cluster_webhook_batches_total{server="kube-2",server_id="${names.get('kube-2')}"}`,
          )
            ? true
            : undefined,
        30_000,
      );
      webhookWindows.push([Date.now() + 1_000, Infinity]);
      console.log(`control plane and serve --record up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }, 240_000);

    afterAll(async () => {
      for (const l of loops) await l.stop();
      for (const w of watches.values()) await w.stop();
      await serve?.stop();
      await cp?.close();
      if (dir && !process.env.PEERSCOPE_KUBE_KEEP) rmSync(dir, { recursive: true, force: true });
      console.log(`recording-rollout: ${((Date.now() - started) / 1000).toFixed(1)} s in all`);
    });

    it('the rollout runs under traffic through the port and straight to the servers, with false 404s while the releases are mixed', async () => {
      const cache = join(dir, 'kubectl-cache');
      const viaPort = kubectl({ server: serve.url }, cache);
      const straight = (host: string) => kubectl({ kubeconfig: cp.kubeconfig(host) }, `${cache}-${host}`);
      const live = () => cp.servers.map((s) => s.url);
      let newOnly: ServedGvr | undefined;
      let removed: ServedGvr | undefined;
      const mixedPaths = () => ['/api/v1/namespaces', ...(newOnly ? [newOnly.path] : []), ...(removed ? [removed.path] : [])];
      loops.push(clientLoop(cp, CHECKER, live, mixedPaths, 400));
      loops.push(
        clientLoop(
          cp,
          PORT_READER,
          () => [serve.url],
          () => ['/api/v1/namespaces/default/configmaps', '/apis/apps/v1/deployments', ...(newOnly ? [newOnly.path] : [])],
          300,
        ),
      );
      for (const args of [
        ['get', 'namespaces'],
        ['api-resources', '--no-headers'],
      ]) {
        const r = await viaPort(args);
        expect(r.code, r.stderr).toBe(0);
      }

      for (const h of HOSTS) servedBefore.set(h, new Set((await servedGvrs(cp, h)).keys()));
      beforeUpgrade = Date.now();
      for (const host of HOSTS) {
        const ip = cp.server(host).ip;
        const stopAt = Date.now();
        const old = cp.server(host).process.child;
        await cp.stop(host, STOP_GRACE_MS);
        const stoppedIn = Date.now() - stopAt;
        const next = await cp.start(spec(host, newer), ip);
        replaced.set(host, { stopAt, readyAt: next.readyAt });
        if (old.signalCode === 'SIGKILL' && host === 'kube-2') {
          // What ended a batch wait before its SIGTERM had been posted; what its replacement wrote is posted from its start.
          (webhookWindows.at(-1) as [number, number])[1] = stopAt - 1_000;
          webhookWindows.push([next.readyAt, Infinity]);
        }
        steps.push(
          `${host} stopped at +${((stopAt - beforeUpgrade) / 1000).toFixed(1)} s (exited in ${(stoppedIn / 1000).toFixed(1)} s${old.signalCode === 'SIGKILL' ? ', killed after its grace' : ''}), ready at ${newer} ${((next.readyAt - stopAt) / 1000).toFixed(1)} s later`,
        );
        if (host !== 'kube-1') continue;
        // Mixed: kube-1 runs the newer release, kube-2 the older. What each alone serves, asked of the other, is a false 404.
        const [nowNew, nowOld] = [await servedGvrs(cp, 'kube-1'), await servedGvrs(cp, 'kube-2')];
        const mixed = new Map([
          ['kube-1', keysOf(nowNew)],
          ['kube-2', keysOf(nowOld)],
        ]);
        moments.push({
          what: 'mixed',
          at: Date.now(),
          served: mixed,
          releases: new Map([
            ['kube-1', newer],
            ['kube-2', older],
          ]),
        });
        const listable = (a: Map<string, ServedGvr>, b: Map<string, ServedGvr>) =>
          [...a.values()].filter((g) => !b.has(g.key) && g.verbs.includes('list')).sort((x, y) => x.key.localeCompare(y.key));
        newOnly = listable(nowNew, nowOld)[0];
        removed = listable(nowOld, nowNew)[0];
        console.log(
          `only ${newer} serves ${newOnly?.key ?? 'nothing listable'}; only ${older} serves ${removed?.key ?? 'nothing listable'}`,
        );
        expect(newOnly, `${newer} serves nothing listable that ${older} does not`).toBeDefined();
        for (let i = 0; i < 2; i++) {
          const r = await straight('kube-2')(['get', '--raw', (newOnly as ServedGvr).path]);
          expect(r.stderr).toMatch(/NotFound|not found/i);
        }
        await new Promise((r) => setTimeout(r, MIXED_MS));
      }
      const r = await viaPort(['get', '--raw', (newOnly as ServedGvr).path]);
      expect(r.code, r.stderr).toBe(0);
      for (const l of loops.splice(0)) await l.stop();
      const after = new Map<string, Set<string>>();
      for (const h of HOSTS) after.set(h, keysOf(await servedGvrs(cp, h)));
      moments.push({ what: 'after the rollout', at: Date.now(), served: after, releases: new Map(HOSTS.map((h) => [h, newer])) });
      console.log(`rollout: ${steps.join('; ')}`);
      expect(cp.servers.map((s) => s.spec.release)).toEqual([newer, newer]);
    }, 180_000);

    it("the recording's false 404s per client and server, and the port's requests, equal the live port's counts", async () => {
      // The port counts the servers' own requests as they come: compare when two live reads around the file's agree.
      const { live, file } = await waitFor(
        'two live reads around the recording that agree',
        async () => {
          const first = await liveCounts(serve.url);
          // Past a flush of the recording (every 200 ms) and a read of the followed log (every 250 ms).
          await new Promise((r) => setTimeout(r, 600));
          const fromFile = recordedCounts(recordFile);
          return sameCounts(first, await liveCounts(serve.url)) ? { live: first, file: fromFile } : undefined;
        },
        20_000,
      );
      console.log(
        [
          `false 404s by source | client | user | server, live (snapshot): ${shown(live.perClient)}`,
          `  recorded: ${shown(file.perClient)}`,
          `false 404s by server, live (metrics): ${shown(live.perServer)}; recorded: ${shown(file.perServer)}`,
          `port requests by outcome | handling | GVR, live (metrics): ${shown(live.port)}`,
          `  recorded: ${shown(file.port)}`,
        ].join('\n'),
      );
      expect(sorted(file.perClient)).toEqual(sorted(live.perClient));
      expect(sorted(file.perServer)).toEqual(sorted(live.perServer));
      expect(sorted(file.port)).toEqual(sorted(live.port));
      // Both sources brought false 404s: the checker straight to each server, kubectl straight to the older kube-2 (its webhook).
      const keys = [...file.perClient.keys()];
      expect(keys.some((k) => k.startsWith(`audit-webhook | ${CHECKER} |`))).toBe(true);
      expect(keys.some((k) => k.startsWith('audit-webhook | kubectl/'))).toBe(true);
      expect(keys.some((k) => k.startsWith(`audit-log | ${CHECKER} |`))).toBe(true);
      expect([...file.port.keys()].some((k) => k.startsWith('rerouted |'))).toBe(true);
    });

    it('the GVR matrix read back at a moment before the first upgrade equals each server’s own discovery then; so while mixed and after', () => {
      moments.unshift({
        what: 'before the first upgrade',
        at: beforeUpgrade,
        served: servedBefore,
        releases: new Map(HOSTS.map((h) => [h, older])),
      });
      const reader = RecordingReader.open(recordFile);
      try {
        for (const { what, at, served, releases } of moments) {
          const state = stateAt(reader, at, () => undefined);
          for (const host of HOSTS) {
            const name = names.get(host) as string;
            const matrix = new Set(
              state.routeTable.rows.filter((r) => r.servers.includes(name)).map((r) => `${r.group}/${r.version}/${r.resource}`),
            );
            const discovery = new Set(reader.discoveryAt(name, at)?.gvrs ?? []);
            const own = served.get(host) as Set<string>;
            const release = state.servers.find((s) => s.name === name)?.gitVersion;
            console.log(
              `${host} ${what}: ${own.size} GVRs served, ${matrix.size} in the recorded matrix, ${discovery.size} in its recorded discovery; release ${release}`,
            );
            expect([...matrix].sort(), `${host} ${what}`).toEqual([...own].sort());
            expect([...discovery].sort(), `${host} ${what}`).toEqual([...own].sort());
            expect(release, `${host} ${what}`).toBe(releases.get(host));
          }
          expect(state.routeTable.columns.map((c) => c.name).sort()).toEqual(HOSTS.map((h) => names.get(h)).sort());
        }
      } finally {
        reader.close();
      }
    });

    it("the report puts each server's release change within 2 s of when its /version changed, and its replacement among the incidents", async () => {
      const r = await peerscope(['recording', 'report', recordFile, '--output', 'json']);
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as RecordingReport;
      const lags: string[] = [];
      const incidents: string[] = [];
      for (const host of HOSTS) {
        const name = names.get(host) as string;
        const observed = watches.get(host)?.seen.find((s) => s.gitVersion === newer)?.at;
        const recorded = report.servers.find((s) => s.server === name)?.changes.find((c) => c.kind === 'release' && c.value === newer)?.at;
        expect(observed, `${host}'s /version never answered ${newer}`).toBeDefined();
        expect(recorded, `the report has no release change of ${host} to ${newer}`).toBeDefined();
        const lag = (recorded as number) - (observed as number);
        lags.push(`${host} ${lag} ms`);
        expect(Math.abs(lag), `${host}: /version changed at ${observed}, the report says ${recorded}`).toBeLessThanOrEqual(RELEASE_LAG_MS);
        // The replacement is an incident of that server: out of service from after its stop until it was back.
        const { stopAt, readyAt } = replaced.get(host) as { stopAt: number; readyAt: number };
        const out = report.incidents.filter((i) => i.server === name && i.kind !== 'peer-503' && i.from >= stopAt && i.from <= readyAt);
        incidents.push(
          `${host}: ${out.map((i) => `${i.kind} +${i.from - stopAt} ms → ${i.to === null ? 'open' : `+${i.to - stopAt} ms`}`).join(', ')} after its stop (ready +${readyAt - stopAt} ms)`,
        );
        expect(out.length, `no incident of ${host} between its stop and its replacement's readiness`).toBeGreaterThan(0);
      }
      console.log(`release change in the report minus /version change seen by the test (polled every 100 ms): ${lags.join(', ')}`);
      console.log(`incidents in the report: ${incidents.join('; ')}`);
    });

    it('recording open and the report name each server by its host name, its lease name beside it', async () => {
      const json = JSON.parse((await peerscope(['recording', 'report', recordFile, '--output', 'json'])).stdout) as RecordingReport;
      const [opened, markdown] = [await peerscope(['recording', 'open', recordFile]), await peerscope(['recording', 'report', recordFile])];
      expect(opened.code, opened.stderr).toBe(0);
      for (const host of HOSTS) {
        const name = names.get(host) as string;
        expect(json.servers.find((s) => s.server === name)?.displayName, name).toBe(host);
        expect(opened.stdout).toContain(`  "${host}" (${name})  `);
        expect(markdown.stdout).toContain(`| "${host}" (${name}) | release |`);
      }
      expect(markdown.stdout, 'a table names a server by its lease name alone').not.toMatch(/\| apiserver-[a-z0-9]+ \|/);
      console.log(
        `recording open lists: ${opened.stdout
          .split('\n')
          .filter((l) => l.includes('apiserver-'))
          .join(' | ')}`,
      );
    });

    it('SIGKILL under traffic loses at most the last second of what the audit logs hold, and the file reopens', async () => {
      const [servers, port] = [() => cp.servers.map((s) => s.url), () => [serve.url]];
      loops.push(clientLoop(cp, CHECKER, servers, () => ['/api/v1/namespaces', '/api/v1/pods'], 200));
      loops.push(clientLoop(cp, PORT_READER, port, () => ['/api/v1/namespaces/default/configmaps'], 200));
      const sampler = sampleTotals(serve.url);
      await new Promise((r) => setTimeout(r, 4_000));
      const killAt = Date.now();
      await serve.kill();
      await sampler.stop();
      // The servers' logs are written as requests end: let the requests of the kill's moment end.
      await new Promise((r) => setTimeout(r, 1_500));
      for (const l of loops.splice(0)) await l.stop();
      const open = await peerscope(['recording', 'open', recordFile]);
      expect(open.code, open.stderr).toBe(0);
      console.log(open.stdout.trimEnd());

      const reader = RecordingReader.open(recordFile);
      const events = reader.events({}, 10_000_000);
      reader.close();
      // kube-1's log is read from its first line: all of it, both releases' processes. kube-2's events reach serve
      // from its first batch on, each up to a batch wait (1 s, --audit-webhook-batch-max-wait) after it ended.
      const sources = [
        { host: 'kube-1', source: 'audit-log', windows: [[0, killAt - 1_000]], grace: 1_000 },
        { host: 'kube-2', source: 'audit-webhook', windows: clipWindows(webhookWindows, killAt - 2_000), grace: 2_000 },
      ] as const;
      const lines: string[] = [];
      for (const { host, source, windows, grace } of sources) {
        const c = killCheck(logs.get(host) as string, events, { source, server: names.get(host) as string, windows, killAt });
        lines.push(`${host} (${source}): ${killLine(c, grace, windows.length)}`);
        expect(c.logged, `${host} logged too little in the windows`).toBeGreaterThan(100);
        expect(c.lost, `${host}: by verb and code, logged ${shown(c.expected)}; recorded ${shown(c.recorded)}`).toBe(0);
      }
      // What the port itself had counted a second before the kill, per source: every one of those is in the file.
      const second = sampler.samples.filter((x) => x.at <= killAt - 1_000).at(-1);
      expect(second, 'no read of the live totals a second before the kill').toBeDefined();
      const inFile = recordedTotals(events);
      const final = sampler.samples.at(-1);
      lines.push(
        `the port's own counts ${killAt - (second?.at ?? 0)} ms before the kill: ${shown(second?.totals ?? new Map(), ', ')}; in the file: ${shown(inFile, ', ')}; last live read ${killAt - (final?.at ?? 0)} ms before the kill: ${shown(final?.totals ?? new Map(), ', ')}`,
      );
      for (const [key, n] of second?.totals ?? [])
        expect(inFile.get(key) ?? 0, `${key}: counted live by kill − 1 s`).toBeGreaterThanOrEqual(n);
      console.log(`SIGKILL of serve under traffic:\n  ${lines.join('\n  ')}`);
    }, 60_000);
  },
);
