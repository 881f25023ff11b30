// Tens of megabytes through `peerscope serve`, on the Node that runs this suite (npm test runs it on
// the Node the desktop app ships on and on the lowest Node `engines` admits): answers chunked (a watch,
// a list) and with Content-Length, request bodies chunked and with Content-Length, and an exec tunnel,
// over HTTP and HTTPS upstreams, to a client that reads as fast as it can and to one that reads slowly.
// The upstream, the port and the client each run in a process of their own (stream-upstream.ts): on
// Node 22 and 24 every chunked answer stalled after its first 64 KiB, unseen while the upstream shared
// the port's event loop. Each transfer must arrive byte-identical, and back-pressure must reach the far
// side: a slow reader makes the upstream wait for 'drain', a slow upstream makes the client wait.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import type { StreamStats } from './streams/stream-upstream.js';
import { sha256, streamBytes } from './streams/stream-bytes.js';
import { createTlsMaterial } from './upstream-fixtures.js';

const MIB = 1024 * 1024;
/** A transfer that moves no byte for this long has stalled (the port's watches are never this quiet here). */
const STALL_MS = 10_000;
/** The slow reader's pace: a 2 ms rest after every 256 KiB. */
const SLOW_EVERY = 256 * 1024;

interface Process {
  readonly child: ChildProcess;
  readonly firstLine: string;
}

async function startProcess(args: string[], options: { ipc?: boolean } = {}): Promise<Process> {
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe', ...(options.ipc ? ['ipc' as const] : [])],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before its first line:\n${stderr}`)));
  });
  return { child, firstLine };
}

function stop(p: Process | undefined): void {
  if (p && p.child.exitCode === null) p.child.kill('SIGKILL');
}

/** Rejects when `bytes()` has not moved for STALL_MS. */
function stallGuard(what: string, bytes: () => number, reject: (e: Error) => void): () => void {
  let last = -1;
  let since = Date.now();
  const timer = setInterval(() => {
    const now = bytes();
    if (now !== last) [last, since] = [now, Date.now()];
    else if (Date.now() - since > STALL_MS) reject(new Error(`${what} stalled after ${now} bytes (nothing for ${STALL_MS / 1000} s)`));
  }, 250);
  return () => clearInterval(timer);
}

/** Reads an answer whole, hashing it as it comes; slowly when asked (a rest after every SLOW_EVERY bytes). */
function download(port: number, path: string, slow: boolean): Promise<{ status: number; bytes: number; sha256: string; route: string }> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    let sinceRest = 0;
    const hash = createHash('sha256');
    const fail = (e: Error) => {
      done();
      req.destroy();
      reject(e);
    };
    const done = stallGuard(`GET ${path}`, () => bytes, fail);
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false }, (res: IncomingMessage) => {
      res.on('data', (c: Buffer) => {
        hash.update(c);
        bytes += c.length;
        sinceRest += c.length;
        if (slow && sinceRest >= SLOW_EVERY) {
          sinceRest = 0;
          res.pause();
          setTimeout(() => res.resume(), 2);
        }
      });
      res.on('end', () => {
        done();
        resolve({ status: res.statusCode ?? 0, bytes, sha256: hash.digest('hex'), route: String(res.headers['x-peerscope-route']) });
      });
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
}

/** Sends `body` in 64 KiB writes that wait for 'drain'; counts the waits. */
function upload(
  port: number,
  path: string,
  body: Buffer,
  chunked: boolean,
): Promise<{ status: number; answer: { sha256: string; bytes: number }; writeWaits: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let writeWaits = 0;
    const fail = (e: Error) => {
      done();
      req.destroy();
      reject(e);
    };
    const done = stallGuard(`POST ${path}`, () => sent, fail);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      ...(chunked ? {} : { 'content-length': String(body.length) }),
    };
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => {
        done();
        try {
          resolve({ status: res.statusCode ?? 0, answer: JSON.parse(text) as { sha256: string; bytes: number }, writeWaits });
        } catch (e) {
          reject(new Error(`POST ${path}: ${res.statusCode} ${text.slice(0, 300)} (${String(e)})`));
        }
      });
    });
    req.on('error', fail);
    const pump = (): void => {
      while (sent < body.length) {
        const piece = body.subarray(sent, sent + 64 * 1024);
        sent += piece.length;
        if (!req.write(piece)) {
          writeWaits++;
          return void req.once('drain', pump);
        }
      }
      req.end();
    };
    pump();
  });
}

/** An exec tunnel through the port: `body` goes up, the upstream echoes it, it is read back (slowly when asked). */
async function echoThroughTunnel(port: number, body: Buffer, slow: boolean): Promise<{ bytes: number; sha256: string }> {
  const socket: Socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(
    `POST /api/v1/namespaces/d/pods/p/exec?command=cat HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n`,
  );
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    let upgraded = false;
    let bytes = 0;
    let sent = 0;
    let sinceRest = 0;
    const hash = createHash('sha256');
    const fail = (e: Error) => {
      done();
      socket.destroy();
      reject(e);
    };
    const done = stallGuard('exec tunnel', () => bytes + sent, fail);
    const take = (c: Buffer): void => {
      hash.update(c);
      bytes += c.length;
      sinceRest += c.length;
      if (bytes >= body.length) {
        done();
        socket.destroy();
        return resolve({ bytes, sha256: hash.digest('hex') });
      }
      if (slow && sinceRest >= SLOW_EVERY) {
        sinceRest = 0;
        socket.pause();
        setTimeout(() => socket.resume(), 2);
      }
    };
    const pump = (): void => {
      while (sent < body.length) {
        const piece = body.subarray(sent, sent + 64 * 1024);
        sent += piece.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
    };
    socket.on('data', (c: Buffer) => {
      if (upgraded) return take(c);
      head = Buffer.concat([head, c]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const status = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
      if (!status.includes(' 101 ')) return fail(new Error(`exec through the port answered "${status}"`));
      upgraded = true;
      const rest = head.subarray(end + 4);
      if (rest.length) take(rest);
      pump();
    });
    socket.on('error', fail);
  });
}

for (const scheme of ['http', 'https'] as const) {
  describe(`tens of megabytes through the port on Node ${process.version}, ${scheme} upstream`, () => {
    let dir: string;
    let upstream: Process | undefined;
    let port: Process | undefined;
    let upstreamUrl: string;
    let portNumber: number;
    const upstreamStats = async (): Promise<StreamStats> => {
      const get = scheme === 'https' ? httpsRequest : httpRequest;
      return new Promise((resolve, reject) => {
        get(`${upstreamUrl}/stats`, { ca: caPem }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c));
          res.on('end', () => resolve(JSON.parse(text) as StreamStats));
        })
          .on('error', reject)
          .end();
      });
    };
    let caPem = '';

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'peerscope-streams-'));
      const config: { tls?: { cert: string; key: string } } = {};
      const caArgs: string[] = [];
      if (scheme === 'https') {
        const tls = await createTlsMaterial();
        caPem = tls.ca.cert;
        config.tls = { cert: tls.server.cert, key: tls.server.key };
        writeFileSync(join(dir, 'ca.crt'), tls.ca.cert);
        caArgs.push('--ca', join(dir, 'ca.crt'));
      }
      writeFileSync(join(dir, 'upstream.json'), JSON.stringify(config));
      upstream = await startProcess(['--import', 'tsx', 'proxy-core/test/streams/stream-upstream.ts', join(dir, 'upstream.json')], {
        ipc: true,
      });
      upstreamUrl = upstream.firstLine.trim();
      // bin/peerscope with this Node explicitly: its shebang would take the first `node` on PATH.
      port = await startProcess(['bin/peerscope', 'serve', '--server', `up=${upstreamUrl}`, ...caArgs, '--listen', '127.0.0.1:0']);
      portNumber = Number(/:(\d+)\s*$/.exec(port.firstLine)?.[1]);
      // Ready once the port has read the upstream's discovery and routes the GVR to it.
      for (let i = 0; ; i++) {
        const probe = await download(portNumber, '/apis/example.io/v1/things?bytes=100', false);
        if (probe.route.endsWith('outcome=local')) break;
        if (i > 100) throw new Error(`the port never routed to the upstream: ${probe.route}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }, 60_000);

    afterAll(() => {
      stop(port);
      stop(upstream);
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const answers = [
      { what: 'a watch (chunked)', query: 'watch=true&bytes=' },
      { what: 'a list (chunked)', query: 'framing=chunked&bytes=' },
      { what: 'a list (Content-Length)', query: 'framing=length&bytes=' },
    ];
    for (const { what, query } of answers) {
      for (const slow of [false, true]) {
        it(`${what} of 32 MiB reaches a client that reads ${slow ? 'slowly' : 'as fast as it can'}, byte-identical`, async () => {
          const size = 32 * MIB;
          const before = (await upstreamStats()).drainWaits;
          const got = await download(portNumber, `/apis/example.io/v1/things?${query}${size}`, slow);
          expect(got.status).toBe(200);
          expect(got.route).toBe('handling=up; answering=up; outcome=local');
          expect(got.bytes).toBe(size);
          expect(got.sha256).toBe(sha256(streamBytes(size)));
          // A slow reader's back-pressure reaches the upstream through the port.
          if (slow) expect((await upstreamStats()).drainWaits).toBeGreaterThan(before);
        });
      }
    }

    for (const chunked of [true, false]) {
      for (const slow of [false, true]) {
        it(`a request body of 32 MiB (${chunked ? 'chunked' : 'Content-Length'}) reaches ${slow ? 'an upstream that reads slowly' : 'the upstream'}, byte-identical`, async () => {
          const body = streamBytes(32 * MIB);
          const sent = await upload(portNumber, `/apis/example.io/v1/namespaces/d/things${slow ? '?slow=1' : ''}`, body, chunked);
          expect(sent.status).toBe(201);
          expect(sent.answer).toEqual({ sha256: sha256(body), bytes: body.length });
          // A slow upstream's back-pressure reaches the client through the port.
          if (slow) expect(sent.writeWaits).toBeGreaterThan(0);
        });
      }
    }

    for (const slow of [false, true]) {
      it(`an exec tunnel echoes 32 MiB to a client that reads ${slow ? 'slowly' : 'as fast as it can'}, byte-identical`, async () => {
        const body = streamBytes(32 * MIB);
        const before = (await upstreamStats()).drainWaits;
        const got = await echoThroughTunnel(portNumber, body, slow);
        expect(got).toEqual({ bytes: body.length, sha256: sha256(body) });
        if (slow) expect((await upstreamStats()).drainWaits).toBeGreaterThan(before);
      });
    }
  });
}
