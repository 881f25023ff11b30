// The audit reader's figures (issue 33): a 1 GiB audit log (about two million events) read whole by
// `peerscope audit`, judged against two simulated servers (v1.36-dev and v1.37-dev) — its time and
// peak RSS — and `serve` taking in 5,000 events a second, following a log and receiving webhook
// batches — its CPU.
// Each run also checks the counts: a figure from a reader that miscounted would mean nothing.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { gvrsOf } from '../proxy-core/engine/discovery/fetch.js';
import { gvrKey, type GVR } from '../proxy-core/engine/discovery/types.js';
import { aggregatedDiscovery, loadRelease } from '../proxy-core/engine/releases/index.js';
import { startSimCluster } from '../proxy-core/sim/index.js';
import type { Figure } from './figure.js';
import { cpuSeconds } from './throughput/procs.js';

const MiB = 1024 * 1024;

/** The requests of the synthetic log, in a fixed rotation: mostly served, some false 404s, a watch. */
export function requestKinds(): { path: string; ref: GVR; verb: string; code: number; watch?: boolean }[] {
  const old = new Set(gvrsOf(aggregatedDiscovery(loadRelease('v1.36-dev'), 'apis')).map(gvrKey));
  const newOnly = gvrsOf(aggregatedDiscovery(loadRelease('v1.37-dev'), 'apis')).find((g) => !old.has(gvrKey(g)));
  if (!newOnly) throw new Error('v1.37-dev serves no GVR that v1.36-dev lacks');
  const deployments = { group: 'apps', version: 'v1', resource: 'deployments' };
  const pods = { group: '', version: 'v1', resource: 'pods' };
  return [
    { path: '/apis/apps/v1/namespaces/shop/deployments/web', ref: deployments, verb: 'get', code: 200 },
    { path: '/api/v1/namespaces/shop/pods', ref: pods, verb: 'list', code: 200 },
    { path: '/api/v1/namespaces/shop/pods/web-7d9f', ref: pods, verb: 'get', code: 404 },
    { path: `/apis/${newOnly.group}/${newOnly.version}/${newOnly.resource}`, ref: newOnly, verb: 'list', code: 404 },
    { path: '/api/v1/namespaces/shop/pods', ref: pods, verb: 'watch', code: 200, watch: true },
  ];
}

/** The lines one request leaves (RequestReceived, then ResponseComplete), as kube-apiserver's log backend writes them. */
export function linesOf(i: number, kinds: ReturnType<typeof requestKinds>): string {
  const k = kinds[i % kinds.length] as (typeof kinds)[number];
  const auditID = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const at = new Date(Date.UTC(2026, 10, 26, 5) + i).toISOString().replace('Z', '000Z');
  const objectRef = `{"resource":"${k.ref.resource}","namespace":"shop",${k.ref.group ? `"apiGroup":"${k.ref.group}",` : ''}"apiVersion":"${k.ref.version}"}`;
  const head = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"${auditID}",`;
  const who = `"requestURI":"${k.path}${k.watch ? '?watch=true' : ''}","verb":"${k.verb}","user":{"username":"system:serviceaccount:shop:operator-${i % 7}","groups":["system:serviceaccounts","system:authenticated"]},"sourceIPs":["10.0.0.${i % 250}"],"userAgent":"shop-operator/v2.${i % 7}.0 (linux/amd64) kubernetes/abcdef0","objectRef":${objectRef},`;
  const received = `${head}"stage":"RequestReceived",${who}"requestReceivedTimestamp":"${at}","stageTimestamp":"${at}"}\n`;
  const status =
    k.code < 400
      ? `{"metadata":{},"code":${k.code}}`
      : `{"metadata":{},"status":"Failure","message":"not found","reason":"NotFound","code":${k.code}}`;
  const done = `${head}"stage":"ResponseComplete",${who}"responseStatus":${status},"requestReceivedTimestamp":"${at}","stageTimestamp":"${at}","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":"RBAC: allowed by RoleBinding"}}\n`;
  return received + done;
}

/** Writes requests until the file holds `bytes`; returns how many requests it holds. */
export async function writeLog(file: string, bytes: number, kinds: ReturnType<typeof requestKinds>): Promise<number> {
  const out = createWriteStream(file);
  let written = 0;
  let requests = 0;
  while (written < bytes) {
    let batch = '';
    for (let j = 0; j < 2000; j++) batch += linesOf(requests++, kinds);
    written += Buffer.byteLength(batch);
    if (!out.write(batch)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return requests;
}

/** Runs a command to its end, sampling its peak RSS (VmHWM) while it runs. */
export async function runMeasured(args: string[]): Promise<{ seconds: number; peakMiB: number; stdout: string; code: number | null }> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  let peakKb = 0;
  const sample = setInterval(() => {
    try {
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0));
    } catch {
      // exited between two samples
    }
  }, 50);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearInterval(sample);
  return { seconds: (performance.now() - started) / 1000, peakMiB: peakKb / 1024, stdout, code };
}

export async function auditFigures({ quick }: { quick: boolean }): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'peerscope-bench-audit-'));
  const sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], http: true });
  const serverArgs = sim.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]);
  const oldServer = (sim.servers[0] as (typeof sim.servers)[number]).name;
  const kinds = requestKinds();
  const figures: Figure[] = [];
  try {
    // Reading a whole log, judged against the servers' discovery.
    const log = join(dir, 'audit.log');
    const requests = await writeLog(log, quick ? 32 * MiB : 1024 * MiB, kinds);
    const size = statSync(log).size / MiB;
    const read = await runMeasured(['bin/peerscope', 'audit', '--audit-log', `${oldServer}=${log}`, ...serverArgs, '--output', 'json']);
    const report = JSON.parse(read.stdout) as { totals: { requests: number; outcomes: Record<string, number> | null } };
    const false404s = report.totals.outcomes?.['false-404'] ?? 0;
    if (read.code !== 0 || report.totals.requests !== requests || false404s !== Math.floor((requests + 1) / kinds.length))
      throw new Error(
        `peerscope audit counted ${report.totals.requests} requests (${false404s} false 404s) of ${requests} (exit ${read.code})`,
      );
    console.log(
      `info  audit log read: ${size.toFixed(0)} MiB, ${requests.toLocaleString('en-US')} requests (${(requests * 2).toLocaleString('en-US')} events), ${false404s.toLocaleString('en-US')} false 404s, every one counted`,
    );
    const scale = quick ? 1024 / size : 1; // the quick run's time, scaled to 1 GiB (the target's size)
    figures.push({
      name: `audit log of 1 GiB read and judged (peerscope audit)${quick ? ', scaled' : ''}`,
      value: read.seconds * scale,
      unit: 's',
      target: 60,
    });
    figures.push({ name: 'audit log read: peak RSS of peerscope audit', value: read.peakMiB, unit: 'MiB', target: 300 });

    // Following a log as it grows, at 5,000 events a second (2,500 requests: two stages each).
    const followed = join(dir, 'follow.log');
    writeFileSync(followed, '');
    const follow = await serveAtRate([...serverArgs, '--audit-log', `${oldServer}=${followed}`], quick, async (batch) => {
      appendFileSync(followed, batch.map((i) => linesOf(requests + i, kinds)).join(''));
    });
    console.log(
      `info  audit log followed: ${follow.sent.toLocaleString('en-US')} requests (${(follow.sent * 2).toLocaleString('en-US')} events) appended over ${follow.seconds} s, every one counted`,
    );
    figures.push({ name: 'audit log followed at 5,000 events/s: CPU of serve', value: follow.cores, unit: 'cores', target: 0.5 });

    // The same rate posted to the audit webhook receiver, as kube-apiserver's webhook backend posts
    // EventList batches (here 250 events each, two every 100 ms) over TLS with the server's token.
    writeFileSync(join(dir, 'webhook.token'), 'bench-posts-with-this\n');
    const caFile = join(dir, 'webhook-ca.crt');
    const webhookArgs = [
      ...['--audit-webhook-listen', '127.0.0.1:0', '--audit-webhook-ca-out', caFile],
      ...['--audit-webhook-token', `${oldServer}=${join(dir, 'webhook.token')}`],
    ];
    let poster: { url: string; agent: Agent } | undefined;
    const received = await serveAtRate(
      [...serverArgs, ...webhookArgs],
      quick,
      async (batch) => {
        if (!poster) throw new Error('the receiver has not said where it listens');
        const { url, agent } = poster;
        for (const half of [batch.slice(0, batch.length / 2), batch.slice(batch.length / 2)]) {
          const items = half.flatMap((i) => eventsOf(requests + i, kinds));
          const res = await request(url, {
            method: 'POST',
            dispatcher: agent,
            headers: { authorization: 'Bearer bench-posts-with-this', 'content-type': 'application/json' },
            body: JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items }),
          });
          await res.body.dump();
          if (res.statusCode !== 200) throw new Error(`the audit webhook answered ${res.statusCode}`);
        }
      },
      (stderr) => {
        const url = /receiving audit events on (https:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1];
        if (url && !poster) poster = { url, agent: new Agent({ connect: { ca: readFileSync(caFile, 'utf8') } }) };
        return poster !== undefined;
      },
    );
    await poster?.agent.close();
    console.log(
      `info  audit webhook: ${received.sent.toLocaleString('en-US')} requests (${(received.sent * 2).toLocaleString('en-US')} events) posted over ${received.seconds} s, every one counted`,
    );
    figures.push({ name: 'audit webhook received at 5,000 events/s: CPU of serve', value: received.cores, unit: 'cores', target: 0.5 });
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

/** One request's two events, as objects (what an EventList carries). */
function eventsOf(i: number, kinds: ReturnType<typeof requestKinds>): unknown[] {
  return linesOf(i, kinds)
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
}

/**
 * `peerscope serve` with `args`, fed `perTick` requests (250 by default: 500 events) every 100 ms for
 * 10 s (3 s quick): the CPU it used per second of wall time, and a check that its /.peerscope/metrics
 * counted every one. `ready` is asked with serve's standard error until it says the input is there.
 */
export async function serveAtRate(
  args: string[],
  quick: boolean,
  feed: (batch: number[]) => Promise<void>,
  ready: (stderr: string) => boolean = () => true,
  perTick = 250,
): Promise<{ cores: number; sent: number; seconds: number; cpuSeconds: number }> {
  const serve = spawn(process.execPath, ['bin/peerscope', 'serve', ...args, '--listen', '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  serve.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  try {
    const first = (await once(createInterface({ input: serve.stdout! }), 'line')) as [string];
    const port = Number(/:(\d+)\s*$/.exec(first[0])?.[1]);
    await new Promise((r) => setTimeout(r, 3000)); // discovery read, start-up settled
    if (!ready(stderr)) throw new Error(`serve is not ready to be fed: ${stderr}`);
    const seconds = quick ? 3 : 10;
    const cpu0 = cpuSeconds([serve.pid as number]);
    const t0 = performance.now();
    let sent = 0;
    for (let tick = 0; tick < seconds * 10; tick++) {
      await feed(Array.from({ length: perTick }, (_, j) => sent + j));
      sent += perTick;
      const due = t0 + (tick + 1) * 100;
      await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
    }
    await new Promise((r) => setTimeout(r, 1000)); // the last batch taken in
    const counted = async (): Promise<number> => {
      const metrics = await (await fetch(`http://127.0.0.1:${port}/.peerscope/metrics`)).text();
      let n = 0;
      for (const m of metrics.matchAll(/^peerscope_cluster_requests_total\{[^}]*\} (\d+)$/gm)) n += Number(m[1]);
      return n;
    };
    // On a busy machine serve may still be catching up: its CPU is counted until it has.
    let n = await counted();
    for (const deadline = performance.now() + 60_000; n < sent && performance.now() < deadline; n = await counted())
      await new Promise((r) => setTimeout(r, 250));
    const cpu = cpuSeconds([serve.pid as number]) - cpu0;
    const cores = cpu / ((performance.now() - t0) / 1000);
    if (n !== sent) throw new Error(`serve ${args.join(' ')} counted ${n} of ${sent} requests fed`);
    return { cores, sent, seconds, cpuSeconds: cpu };
  } finally {
    serve.kill('SIGTERM');
    await once(serve, 'exit');
  }
}
