// RSS of `peerscope serve --record` after it has taken in and recorded `events` audit events (issue 42:
// at most 200 MiB after a 2-hour rollout's 36 million). A real serve process receives them on its audit
// webhook as kube-apiserver's webhook backend posts them (EventList batches of 400 over TLS with the
// server's token), as fast as the bench can post: two batches in flight, each answered once serve has
// taken it in. The events are final-stage only (a policy that omits RequestReceived, as many do), a
// hundred clients over the five request kinds of the audit bench, their times 200 µs apart (5,000 a
// second: 36 million span two hours). At the end serve's metrics and the recording must count every one.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { RecordingReader } from '../../proxy-core/engine/recording/reader.js';
import { loadRelease } from '../../proxy-core/engine/releases/index.js';
import { startSimCluster } from '../../proxy-core/sim/index.js';
import { requestKinds } from '../audit.js';
import { rssMiBOf } from '../soak/rss.js';
import { IDLE_SETTLE_MS } from '../throughput/plan.js';

/** kube-apiserver's webhook backend sends at most 400 events a batch. */
const BATCH = 400;
const IN_FLIGHT = 2;
const CLIENTS = 100;
const TOKEN = 'bench-posts-with-this';

export const DEFAULT_SERVE_EVENTS = 36_000_000;
export const QUICK_SERVE_EVENTS = 200_000;

export function serveEventsFromArgs(argv: readonly string[], quick: boolean): number {
  const i = argv.indexOf('--serve-events');
  if (i < 0) return quick ? QUICK_SERVE_EVENTS : DEFAULT_SERVE_EVENTS;
  const n = Number(argv[i + 1]);
  if (!Number.isInteger(n) || n < BATCH) throw new Error(`--serve-events needs a whole number of at least ${BATCH}`);
  return n;
}

export interface ServeRss {
  readonly events: number;
  /** RSS once serve has taken in every event and settled as idle is read (IDLE_SETTLE_MS). */
  readonly rssMiB: number;
  /** The highest RSS sampled while it took them in. */
  readonly peakMiB: number;
  readonly seconds: number;
}

/** One final-stage audit event of request `i`, as JSON text. */
function eventText(i: number, kinds: ReturnType<typeof requestKinds>): string {
  const k = kinds[i % kinds.length]!;
  const c = i % CLIENTS;
  const at = new Date(Date.UTC(2026, 10, 27, 14) + Math.floor(i / 5)).toISOString();
  const ref = `{"resource":"${k.ref.resource}","namespace":"shop",${k.ref.group ? `"apiGroup":"${k.ref.group}",` : ''}"apiVersion":"${k.ref.version}"}`;
  const status =
    k.code < 400 ? `{"metadata":{},"code":${k.code}}` : `{"metadata":{},"status":"Failure","reason":"NotFound","code":${k.code}}`;
  return (
    `{"level":"Metadata","auditID":"00000000-0000-4000-8000-${String(i).padStart(12, '0')}","stage":"ResponseComplete",` +
    `"requestURI":"${k.path}${k.watch ? '?watch=true' : ''}","verb":"${k.verb}","user":{"username":"system:serviceaccount:shop:operator-${c}","groups":["system:serviceaccounts","system:authenticated"]},` +
    `"sourceIPs":["10.0.0.${c}"],"userAgent":"shop-operator-${c}/v2.${c % 7}.0 (linux/amd64) kubernetes/abcdef0","objectRef":${ref},` +
    `"responseStatus":${status},"requestReceivedTimestamp":"${at}","stageTimestamp":"${at}"}`
  );
}

/** `nodeFlags`: for experiments (bench/memory), e.g. a heap snapshot on a signal. */
export async function serveRecordedRss(events: number, nodeFlags: readonly string[] = []): Promise<ServeRss> {
  const dir = mkdtempSync(join(tmpdir(), 'peerscope-bench-serve-rss-'));
  const sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], http: true });
  const server = sim.servers[0]!.name;
  const caFile = join(dir, 'webhook-ca.crt');
  const record = join(dir, 'serve.recording.sqlite');
  writeFileSync(join(dir, 'webhook.token'), `${TOKEN}\n`);
  const args = [
    ...sim.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]),
    ...['--audit-webhook-listen', '127.0.0.1:0', '--audit-webhook-ca-out', caFile],
    ...['--audit-webhook-token', `${server}=${join(dir, 'webhook.token')}`, '--record', record, '--listen', '127.0.0.1:0'],
  ];
  const serve = spawn(process.execPath, [...nodeFlags, 'bin/peerscope', 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  serve.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const pid = serve.pid as number;
  let agent: Agent | undefined;
  try {
    const first = (await once(createInterface({ input: serve.stdout! }), 'line')) as [string];
    const port = Number(/:(\d+)\s*$/.exec(first[0])?.[1]);
    for (const deadline = performance.now() + 30_000; !/receiving audit events on https:/.test(stderr);) {
      if (performance.now() > deadline) throw new Error(`serve did not start its webhook receiver: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const url = /receiving audit events on (https:\/\/127\.0\.0\.1:\d+)/.exec(stderr)![1]!;
    agent = new Agent({ connect: { ca: readFileSync(caFile, 'utf8') }, connections: IN_FLIGHT });
    const kinds = requestKinds();
    let next = 0;
    let peakMiB = 0;
    const began = performance.now();
    const poster = async (): Promise<void> => {
      while (next < events) {
        const from = next;
        next = Math.min(events, next + BATCH);
        const items: string[] = [];
        for (let i = from; i < next; i++) items.push(eventText(i, kinds));
        const res = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[${items.join(',')}]}`,
        });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`the audit webhook answered ${res.statusCode}`);
        if (from % 200_000 < BATCH) peakMiB = Math.max(peakMiB, rssMiBOf(pid) ?? 0);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, poster));
    const seconds = (performance.now() - began) / 1000;
    await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
    const rssMiB = rssMiBOf(pid) ?? 0;
    const counted = await countedRequests(port);
    if (counted !== events) throw new Error(`serve counted ${counted} of ${events} audit events posted`);
    serve.kill('SIGTERM');
    await once(serve, 'exit');
    const reader = RecordingReader.open(record);
    const recorded = reader.info().events;
    reader.close();
    if (recorded !== events) throw new Error(`serve --record wrote ${recorded} events of ${events} posted`);
    return { events, rssMiB, peakMiB: Math.max(peakMiB, rssMiB), seconds };
  } finally {
    if (serve.exitCode === null && serve.signalCode === null) {
      serve.kill('SIGTERM');
      await once(serve, 'exit');
    }
    await agent?.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function countedRequests(port: number): Promise<number> {
  const metrics = await (await fetch(`http://127.0.0.1:${port}/.peerscope/metrics`)).text();
  let n = 0;
  for (const m of metrics.matchAll(/^peerscope_cluster_requests_total\{[^}]*\} (\d+)$/gm)) n += Number(m[1]);
  return n;
}
