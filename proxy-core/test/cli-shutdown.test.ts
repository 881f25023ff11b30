// Issue 20, shutdown: an operator's Ctrl-C (SIGINT) and a service manager's SIGTERM stop
// `peerscope serve` promptly whatever it served before. The built CLI runs in its own process in front
// of simulated HTTPS apiservers; a mixed stretch of traffic goes through it — real kubectl runs, exec
// upgrades over WebSocket and SPDY (one shell left open), malformed requests whose connections are
// closing lingering, watches (one left open), idle keep-alive connections — then the signal, and the
// time until the process has exited with code 0.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { portKubeconfig } from '../hosts/session/demo.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';

const KUBECTL = '/usr/bin/kubectl';
const hasKubectl = existsSync(KUBECTL);
if (!hasKubectl) console.log(`cli-shutdown: ${KUBECTL} is missing: the mixed stretch runs without its kubectl part`);

let sim: SimCluster;
let dir: string;

beforeAll(async () => {
  sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['old', 'new'] });
  dir = mkdtempSync(join(tmpdir(), 'shutdown-'));
  writeFileSync(join(dir, 'ca.crt'), sim.ca ?? '');
  writeFileSync(join(dir, 'token'), `${sim.token}\n`);
});
afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function startServe(): Promise<{ child: ChildProcess; port: number; exited: Promise<number | null> }> {
  const servers = sim.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]);
  const child = spawn(
    process.execPath,
    ['bin/peerscope', 'serve', ...servers, '--ca', join(dir, 'ca.crt'), '--token-file', join(dir, 'token'), '--listen', '127.0.0.1:0'],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  return { child, port: Number(/:(\d+)$/.exec(line)?.[1]), exited };
}

/** Writes raw bytes on a new connection and resolves with the socket once `until` shows in the answer. */
function raw(port: number, bytes: string, until: RegExp): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (c: Buffer) => {
      data += c.toString('latin1');
      if (until.test(data)) resolve(socket);
    });
    socket.on('error', reject);
    socket.write(bytes);
    setTimeout(() => reject(new Error(`no ${until} in ${JSON.stringify(data.slice(0, 200))}`)), 10_000);
  });
}

/** Everything but the signal: leaves open what an operator's session leaves open. */
async function mixedStretch(port: number): Promise<{ keep: Array<{ close(): unknown }> }> {
  const base = `http://127.0.0.1:${port}`;
  const host = `Host: 127.0.0.1:${port}`;
  const keep: Array<{ close(): unknown }> = [];
  if (hasKubectl) {
    const kubeconfig = join(dir, `port-${port}.kubeconfig`);
    writeFileSync(kubeconfig, portKubeconfig(base));
    const name = `cm-${randomBytes(3).toString('hex')}`;
    // From a file: kubectl sends it as JSON (its typed `create configmap` sends protobuf, which the simulator does not read).
    const manifest = join(dir, `${name}.json`);
    writeFileSync(
      manifest,
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { a: '1' } }),
    );
    for (const args of [
      ['get', 'namespaces'],
      ['api-resources'],
      ['create', '-f', manifest],
      ['get', 'configmaps', '-A'],
      ['delete', 'configmap', name],
    ]) {
      // Not spawnSync: the simulated apiservers answer from this process's event loop.
      const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
        execFile(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { timeout: 30_000 }, (err, _stdout, stderr) =>
          resolve({ code: err ? Number(err.code ?? 1) : 0, stderr }),
        );
      });
      expect(run.code, `kubectl ${args.join(' ')}: ${run.stderr}`).toBe(0);
    }
  }
  await request(`${base}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `shell-${port}` } }),
  }).then((r) => r.body.text());
  // Exec upgrades: WebSocket and SPDY; the last shell stays open.
  for (let i = 0; i < 3; i++) {
    const ws = await raw(
      port,
      `GET /api/v1/namespaces/default/pods/shell-${port}/exec?command=sh HTTP/1.1\r\n${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`,
      /^HTTP\/1\.1 101[^]*\r\n\r\n/,
    );
    const spdy = await raw(
      port,
      `POST /api/v1/namespaces/default/pods/shell-${port}/exec?command=sh HTTP/1.1\r\n${host}\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\nContent-Length: 0\r\n\r\n`,
      /^HTTP\/1\.1 101[^]*\r\n\r\n/,
    );
    ws.end();
    if (i < 2) spdy.end();
    else keep.push({ close: () => spdy.destroy() });
  }
  // Malformed requests: each connection is answered 400 and closed lingering, the client still there.
  for (const bad of [
    'GARBAGE\r\n\r\n',
    `GET /api HTTP/1.1\r\n${host}\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n`,
    `GET /api HTTP/1.1\r\nX Bad: 1\r\n\r\n`,
  ]) {
    const s = await raw(port, bad, /^HTTP\/1\.1 400[^]*\r\n\r\n/);
    keep.push({ close: () => s.destroy() });
  }
  // A Connection: close answer with the body still coming: the port lingers reading it.
  const lingering = await raw(
    port,
    `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\n${host}\r\nConnection: close\r\nOrigin: http://evil.example\r\nContent-Length: 100000\r\n\r\n{`,
    /^HTTP\/1\.1 403[^]*\r\n\r\n/,
  );
  keep.push({ close: () => lingering.destroy() });
  // Watches: some opened and ended by the client, one left open.
  const agent = new Agent({ connections: 8, keepAliveTimeout: 60_000 });
  keep.push(agent);
  for (let i = 0; i < 3; i++) {
    const ac = new AbortController();
    const w = await request(`${base}/api/v1/namespaces/default/configmaps?watch=true`, { dispatcher: agent, signal: ac.signal });
    expect(w.statusCode).toBe(200);
    if (i < 2) ac.abort();
    else keep.push({ close: () => ac.abort() });
    w.body.on('error', () => undefined);
  }
  // Idle keep-alive connections left open, after short requests on each.
  await Promise.all(
    Array.from({ length: 6 }, () => request(`${base}/api/v1/namespaces`, { dispatcher: agent }).then((r) => r.body.text())),
  );
  return { keep };
}

describe('peerscope serve stops promptly after a mixed stretch of traffic', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s with an open watch, an open shell and lingering connections: exit 0 within 2 s',
    async (signal) => {
      const { child, port, exited } = await startServe();
      let keep: Array<{ close(): unknown }> = [];
      try {
        ({ keep } = await mixedStretch(port));
        const sent = performance.now();
        child.kill(signal);
        const code = await exited;
        const ms = performance.now() - sent;
        console.log(`peerscope serve: ${signal} after the mixed stretch → exit ${code} in ${ms.toFixed(0)} ms`);
        expect(code).toBe(0);
        expect(ms).toBeLessThan(2_000);
      } finally {
        child.kill('SIGKILL');
        for (const k of keep) await Promise.resolve(k.close()).catch(() => undefined);
      }
    },
    90_000,
  );
});
