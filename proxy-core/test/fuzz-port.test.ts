// Bad input never breaks the port (issue: hold a whole rollout under load, "Bad input"): at least
// 100,000 generated requests — malformed request lines, odd and unknown methods, encoded, dot-segment,
// huge and unicode paths, foreign / missing / repeated Host, a browser's Origin and Sec-Fetch-Site
// marks (foreign, null, cross-site, same-site: 403), client X-Remote-* and hop-by-hop headers,
// duplicate, oversized and invalid header bytes, bodies with wrong or conflicting framing, upgrades,
// and upstream faults — go over raw TCP to `peerscope serve` in its own process, pipelined on
// connections that run in parallel, in front of three recording upstreams on 127.0.0.1.
// fast-check generates them from a fixed seed, within a count and a time limit. The oracle
// (fuzz/oracle.ts) checks every answer and every request an upstream received.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { runConnection } from './fuzz/client.js';
import { checkConnection } from './fuzz/oracle.js';
import type { OracleContext } from './fuzz/oracle-context.js';
import { render } from './fuzz/render.js';
import type { Expectation, Rendered } from './fuzz/rendered.js';
import { SERVER_TOKEN, SERVERS } from './fuzz/cluster.js';
import type { RequestSpec } from './fuzz/request-spec.js';
import { connectionArb } from './fuzz/requests.js';
import { startFuzzUpstream, type FuzzUpstream, type UpstreamRecord } from './fuzz/upstream.js';

const SEED = Number(process.env.PEERSCOPE_FUZZ_SEED ?? 20261123);
const TARGET_REQUESTS = Number(process.env.PEERSCOPE_FUZZ_REQUESTS ?? 100_000);
/** Stop after this long even if the count is not reached (the test then fails on the count). */
const TIME_LIMIT_MS = Number(process.env.PEERSCOPE_FUZZ_SECONDS ?? 240) * 1000;
/** Connections in flight at once, each carrying its requests back to back. */
const LANES = 48;
/** Connections drawn from fast-check at a time (one seed each). */
const CHUNK = 256;
/** Development aid: do not stop at the first failing round; print each kind of failure with a count and an example. */
const SURVEY = process.env.PEERSCOPE_FUZZ_SURVEY === '1';
/** Development aid: a directory to write each failing connection to (its bytes, base64), for replaying. */
const DUMP = process.env.PEERSCOPE_FUZZ_DUMP;

interface PortProcess {
  readonly child: ChildProcess;
  readonly port: number;
  stderr(): string;
  exited(): string | undefined;
}

async function startPort(upstreams: readonly FuzzUpstream[], tokenFile: string): Promise<PortProcess> {
  const args = [
    'bin/peerscope',
    'serve',
    ...upstreams.flatMap((u) => ['--server', `${u.name}=${u.url}`]),
    '--token-file',
    tokenFile,
    '--listen',
    '127.0.0.1:0',
    '--policy',
    'round-robin',
    '--max-events',
    '2000',
  ];
  const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let exit: string | undefined;
  child.stderr!.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-20_000)));
  child.on('exit', (code, signal) => (exit = `exit code ${code}, signal ${signal}`));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', () => reject(new Error(`peerscope serve exited before listening: ${err}`)));
  });
  const port = Number(/:(\d+)$/.exec(line)?.[1]);
  if (!port) throw new Error(`unexpected first line ${line}`);
  return { child, port, stderr: () => err, exited: () => exit };
}

/** CPU seconds (user + system) a process has used, from /proc. */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

function rssMiB(pid: number | undefined): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

describe('the port under 100,000 generated requests', () => {
  let upstreams: FuzzUpstream[] = [];
  let port: PortProcess;
  let dir: string;

  beforeAll(async () => {
    upstreams = await Promise.all(Object.entries(SERVERS).map(([name, gvrs]) => startFuzzUpstream(name, gvrs)));
    dir = mkdtempSync(join(tmpdir(), 'peerscope-fuzz-'));
    writeFileSync(join(dir, 'token'), `${SERVER_TOKEN}\n`);
    port = await startPort(upstreams, join(dir, 'token'));
  });

  afterAll(async () => {
    // Normally gone already (the test stops it); never leave it running.
    if (port && port.exited() === undefined) port.child.kill('SIGKILL');
    await Promise.all(upstreams.map((u) => u.close()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'never crashes, answers well-formed HTTP, refuses with Status, and forwards nothing it must refuse',
    async () => {
      const ctx: OracleContext = { upstreamPorts: new Map(upstreams.map((u) => [u.name, u.port])), servers: SERVERS };
      const expectations = new Map<string, Expectation>();
      const records = new Map<string, UpstreamRecord[]>();
      const strays: string[] = [];
      const failures: { where: string; messages: string[] }[] = [];
      const survey = new Map<string, { count: number; example: string }>();
      let nextId = 0;
      let sent = 0;
      let connections = 0;
      const byExpectation: Record<string, number> = {};
      const browserMarked = { refused: 0, passed: 0 };
      const byStatus: Record<string, number> = {};
      const rssStart = rssMiB(port.child.pid);
      let rssPeak = rssStart;

      /** Moves what the upstreams recorded into `records`; a request the port had to answer itself is a stray. */
      const collect = () => {
        for (const u of upstreams) {
          for (const r of u.records.splice(0)) {
            const exp = r.fuzzId === undefined ? undefined : expectations.get(r.fuzzId);
            if (r.fuzzId === undefined || exp === undefined)
              strays.push(
                `${u.name} got a request no fuzz request explains: ${r.method} ${r.url.slice(0, 200)} (id ${JSON.stringify(r.fuzzId?.slice(0, 100))})`,
              );
            else if (exp === 'refuse' || exp === 'own')
              strays.push(`${u.name} got ${r.fuzzId} (${r.method} ${r.url.slice(0, 200)}), which the port had to answer itself`);
            if (r.fuzzId === undefined) continue;
            const list = records.get(r.fuzzId) ?? [];
            list.push(r);
            records.set(r.fuzzId, list);
          }
        }
      };

      // Connections come from fast-check, CHUNK at a time, chunk c drawn with seed SEED + c: any
      // connection can be drawn again from (seed, chunk, index) alone (PEERSCOPE_FUZZ_REPLAY=c:i).
      const connection = fc.record({
        requests: connectionArb(port.port),
        writes: fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 6 }) }),
      });
      const drawn: { chunk: number; index: number; requests: RequestSpec[]; writes: number }[] = [];
      let chunk = 0;
      const draw = () => {
        if (drawn.length === 0) {
          fc.sample(connection, { seed: SEED + chunk, numRuns: CHUNK }).forEach((c, index) => drawn.push({ chunk, index, ...c }));
          chunk++;
        }
        return drawn.shift()!;
      };
      const replay = process.env.PEERSCOPE_FUZZ_REPLAY?.split(':').map(Number);
      if (replay) {
        drawn.push(
          ...fc
            .sample(connection, { seed: SEED + (replay[0] ?? 0), numRuns: (replay[1] ?? 0) + 1 })
            .slice(-1)
            .map((c) => ({ chunk: replay[0] ?? 0, index: replay[1] ?? 0, ...c })),
        );
        chunk = Number.MAX_SAFE_INTEGER;
      }

      const started = performance.now();
      const cpuStart = { port: cpuSeconds(port.child.pid), test: process.cpuUsage() };
      const deadline = started + TIME_LIMIT_MS;
      const done = () =>
        sent >= TARGET_REQUESTS ||
        performance.now() > deadline ||
        failures.length >= 10 ||
        port.exited() !== undefined ||
        (replay !== undefined && connections > 0);

      /** One lane: connection after connection, each checked as soon as it is over. LANES run at once. */
      const lane = async () => {
        while (!done()) {
          const c = draw();
          const requests = firstTerminal(c.requests.map((spec) => render(spec, `f${(nextId++).toString(36)}`, port.port)));
          for (const r of requests) {
            expectations.set(r.id, r.expect);
            byExpectation[r.expect] = (byExpectation[r.expect] ?? 0) + 1;
            if (r.spec.browser !== undefined) browserMarked[r.codes.includes(403) ? 'refused' : 'passed']++;
          }
          const outcome = await runConnection(port.port, requests, { writes: c.writes });
          sent += requests.length;
          connections++;
          for (const a of outcome.answers) for (const f of a.finals) byStatus[f.status] = (byStatus[f.status] ?? 0) + 1;
          collect();
          const found = [...checkConnection(ctx, requests, outcome, records), ...strays.splice(0)];
          for (const r of requests) records.delete(r.id);
          if (connections % 2_000 === 0) rssPeak = Math.max(rssPeak, rssMiB(port.child.pid));
          if (found.length === 0) continue;
          const where = `chunk ${c.chunk}, connection ${c.index} (replay: PEERSCOPE_FUZZ_SEED=${SEED} PEERSCOPE_FUZZ_REPLAY=${c.chunk}:${c.index})`;
          if (DUMP)
            writeFileSync(
              join(DUMP, `${c.chunk}-${c.index}.json`),
              JSON.stringify({
                where,
                writes: c.writes,
                requests: requests.map((r) => ({ id: r.id, bytes: r.bytes.toString('base64') })),
                failures: found,
              }),
            );
          if (!SURVEY) failures.push({ where, messages: found });
          for (const f of found) {
            const kind = (f.split('\n')[0] ?? '')
              .replace(/\d+/g, 'N')
              .replace(/"[^"]*"/g, '"…"')
              .slice(0, 140);
            const seen = survey.get(kind);
            if (seen) seen.count++;
            else survey.set(kind, { count: 1, example: `${where}\n    ${f.slice(0, 1500)}` });
          }
        }
      };
      await Promise.all(Array.from({ length: replay ? 1 : LANES }, lane));
      const seconds = (performance.now() - started) / 1000;
      const testCpu = process.cpuUsage(cpuStart.test);
      const cpu = { port: cpuSeconds(port.child.pid) - cpuStart.port, test: (testCpu.user + testCpu.system) / 1e6 };

      if (survey.size)
        console.log(
          [...survey]
            .sort((a, b) => b[1].count - a[1].count)
            .map(([k, v]) => `${v.count} × ${k}\n    ${v.example}`)
            .join('\n'),
        );
      const crashed = port.exited();
      if (crashed) throw new Error(`peerscope serve died (${crashed}) after ${sent} requests:\n${port.stderr()}`);
      if (failures.length)
        throw new Error(
          `the fuzz found broken promises (seed ${SEED}, after ${sent} requests):\n${failures.map((f) => `${f.where}:\n  ${f.messages.slice(0, 4).join('\n  ')}`).join('\n\n')}`,
        );

      // Still alive and still serving.
      const after = await runConnection(port.port, [render(healthyRequest(port.port), 'final', port.port)]);
      expect(after.answers[0]?.finals[0]?.status).toBe(200);
      rssPeak = Math.max(rssPeak, rssMiB(port.child.pid));
      console.log(
        `fuzz of the port: ${sent.toLocaleString('en-US')} requests on ${connections.toLocaleString('en-US')} connections in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)} requests/s), seed ${SEED}\n` +
          `  expected: ${JSON.stringify(byExpectation)}\n  answers by status: ${JSON.stringify(byStatus)}\n` +
          `  with a browser's marks (Origin, Sec-Fetch-Site): ${browserMarked.refused} to refuse with 403, ${browserMarked.passed} from the port's own origin or typed in\n` +
          `  CPU: the port ${cpu.port.toFixed(1)} s, the fuzz (clients, upstreams, oracle) ${cpu.test.toFixed(1)} s\n` +
          `  port RSS ${rssStart.toFixed(0)} MiB at start, ${rssPeak.toFixed(0)} MiB at most; its own reads of the upstreams: ${upstreams.map((u) => `${u.name} ${[...u.ownReads.values()].reduce((a, b) => a + b, 0)}`).join(', ')}`,
      );
      if (!replay && !SURVEY) expect(sent).toBeGreaterThanOrEqual(TARGET_REQUESTS);
      // And it still shuts down cleanly (SIGTERM → exit 0 within its 5 s grace and a little more).
      port.child.kill('SIGTERM');
      const exit = await new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve('still running 10 s after SIGTERM'), 10_000);
        port.child.once('exit', (code) => {
          clearTimeout(timer);
          resolve(`exit ${code}`);
        });
      });
      expect(exit, port.stderr()).toBe('exit 0');
    },
    TIME_LIMIT_MS + 120_000,
  );
});

/** A connection carries requests up to the first that ends it. */
function firstTerminal(requests: Rendered[]): Rendered[] {
  const i = requests.findIndex((r) => r.terminal);
  return i < 0 ? requests : requests.slice(0, i + 1);
}

function healthyRequest(port: number): RequestSpec {
  return {
    method: { name: 'GET', cls: 'standard' },
    target: { form: 'origin', path: '/version', query: '' },
    version: 'HTTP/1.1',
    host: { kind: 'ok', value: `localhost:${port}` },
    browser: undefined,
    reply: 'json',
    identity: [],
    connection: 'close',
    hop: [],
    upgrade: undefined,
    peerProxied: undefined,
    authorization: false,
    accept: undefined,
    expect: undefined,
    extra: [],
    padTo: 0,
    invalidHeader: undefined,
    body: { kind: 'none' },
  };
}
