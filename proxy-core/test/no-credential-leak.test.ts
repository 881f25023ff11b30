// Credentials stay in proxy-core (issue 5): after `peerscope serve --kubeconfig … --ui` sessions that
// use every credential kind — a bearer token, a token file, an exec plugin's token, a client
// certificate and key (inline data and files), a proxy-url and an HTTPS_PROXY with user and password —
// nothing that left the core holds one of them or the kubeconfig's text: no control-API answer, no
// server-sent event, no log line, no Prometheus text, no snapshot (served, saved, or taken through the
// API), no `peerscope servers` output, no Status the port wrote (503s included).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { repoRoot } from '../../test/fixtures.js';
import { shortHash } from '../engine/telemetry/client-identity.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';
import type { PemPair } from '../engine/tls/certs.js';
import { startConnectProxy, type ConnectProxy } from './connect-proxy.js';

const HIDDEN = '192.0.2.10'; // reached only through the test proxy
const NEW_ONLY = '/apis/storagemigration.k8s.io/v1/storageversionmigrations';
const CLIENT_TOKEN = 'client-own-token-7d1e0b93';
const b64 = (s: string) => Buffer.from(s).toString('base64');

interface Session {
  readonly name: string;
  readonly sim: SimCluster;
  readonly kubeconfig: string;
  readonly env: NodeJS.ProcessEnv;
}

function pemBody(pem: string): string[] {
  // The base64 lines of a PEM block, each long enough to be unmistakable.
  return pem.split('\n').filter((l) => l.length >= 40 && !l.startsWith('-----'));
}

function certSecrets(cert: PemPair): string[] {
  return [...pemBody(cert.cert), ...pemBody(cert.key), b64(cert.cert).slice(0, 60), b64(cert.key).slice(0, 60), 'PRIVATE KEY'];
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['bin/peerscope', ...args],
      { cwd: repoRoot, env, timeout: 30_000, encoding: 'utf8' },
      (_e, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

/** Runs one serve session, drives it, and returns everything that came out of it. */
async function exercise(s: Session): Promise<{ everything: string; seen: { events: number; serverEvents: number; unavailable: number } }> {
  const out: string[] = [];
  const child: ChildProcess = spawn(
    process.execPath,
    [
      'bin/peerscope',
      'serve',
      '--kubeconfig',
      s.kubeconfig,
      '--listen',
      '127.0.0.1:0',
      '--ui',
      '--server-refresh',
      '0.5',
      '--policy',
      'pin:apiserver-old',
    ],
    {
      cwd: repoRoot,
      env: s.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (l) => (stdout += `${l}\n`));
  try {
    const deadline = Date.now() + 20_000;
    while (!/UI: (\S+)/.test(stdout) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    const port = /Starting to serve on 127\.0\.0\.1:(\d+)/.exec(stdout)?.[1];
    const ui = /UI: (\S+)/.exec(stdout)?.[1];
    if (!port || !ui) throw new Error(`serve did not start: ${stdout}\n${stderr}`);
    const portUrl = `http://127.0.0.1:${port}`;
    const uiUrl = new URL(ui);
    const controlToken = new URLSearchParams(uiUrl.hash.slice(1)).get('token')!;
    const rpc = async (method: string, args: unknown = {}) => {
      const res = await fetch(`${uiUrl.origin}/api/rpc/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${controlToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(args),
      });
      return res.text();
    };

    // Server-sent events for the whole session.
    const sse = new AbortController();
    let sseText = '';
    const reading = (async () => {
      const res = await fetch(`${uiUrl.origin}/api/events`, { headers: { authorization: `Bearer ${controlToken}` }, signal: sse.signal });
      const decoder = new TextDecoder();
      for await (const chunk of res.body!) sseText += decoder.decode(chunk as Uint8Array, { stream: true });
    })().catch(() => undefined);

    // Traffic: rerouted, local, and a request that brings its own credential.
    for (let i = 0; i < 3; i++) out.push(await (await fetch(`${portUrl}${NEW_ONLY}`)).text());
    out.push(
      await (
        await fetch(`${portUrl}/api/v1/namespaces/default/configmaps`, { headers: { authorization: `Bearer ${CLIENT_TOKEN}` } })
      ).text(),
    );
    // The newer server goes down: health events, error messages, and the port's own 503 Status.
    await s.sim.server('new').stop();
    let unavailable = 0;
    for (let i = 0; i < 60 && unavailable === 0; i++) {
      const res = await fetch(`${portUrl}${NEW_ONLY}`);
      const text = await res.text();
      out.push(text);
      if (res.status === 503) unavailable++;
      else await new Promise((r) => setTimeout(r, 100));
    }
    for (let i = 0; i < 40 && !sseText.includes('"unreachable"'); i++) await new Promise((r) => setTimeout(r, 100));
    await s.sim.server('new').start();
    for (let i = 0; i < 60; i++) {
      const res = await fetch(`${portUrl}${NEW_ONLY}`);
      out.push(await res.text());
      if (res.status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }

    // Every read of the control API, and the mutations that answer something.
    for (const m of [
      'getOverview',
      'getRouteTable',
      'getEvents',
      'getHealthHistory',
      'getDiscoveryViews',
      'takeSnapshot',
      'getImpactReport',
    ])
      out.push(await rpc(m));
    out.push(
      await rpc('setPolicy', { policy: 'pin:apiserver-old' }),
      await rpc('setDiscoveryMode', { mode: 'peer-aggregated' }),
      await rpc('setPolicy', { policy: 'pin:nobody' }),
    );
    // Telemetry and the snapshot on the port; a snapshot saved by the CLI; the servers command.
    out.push(
      await (await fetch(`${portUrl}/.peerscope/metrics`)).text(),
      await (await fetch(`${portUrl}/.peerscope/snapshot`)).text(),
      await (await fetch(`${portUrl}/.peerscope/impact`)).text(),
    );
    // The upgrade-impact report names the client that brought CLIENT_TOKEN by a hash of it, in every output.
    for (const output of ['json', 'text', 'markdown']) {
      const report = await run(['report', '--port-url', portUrl, '--output', output], s.env);
      expect(report.code, report.stderr).toBe(0);
      out.push(report.stdout, report.stderr);
    }
    const saved = join(mkdtempSync(join(tmpdir(), 'leak-snap-')), 'snap.json');
    const save = await run(['snapshot', 'save', '--port-url', portUrl, '--out', saved], s.env);
    expect(save.code, save.stderr).toBe(0);
    out.push(save.stdout, save.stderr, readFileSync(saved, 'utf8'));
    for (const output of ['json', 'text']) {
      const listed = await run(['servers', '--kubeconfig', s.kubeconfig, '--output', output], s.env);
      expect(listed.code, listed.stderr).toBe(0);
      out.push(listed.stdout, listed.stderr);
    }
    sse.abort();
    await reading;
    out.push(sseText);
    const events = (sseText.match(/"type":"routing"/g) ?? []).length;
    const serverEvents = (sseText.match(/"type":"servers"/g) ?? []).length;
    child.kill('SIGTERM');
    await once(child, 'exit');
    out.push(stdout, stderr);
    console.log(`${s.name}: serve said:\n${stderr.trim()}`);
    return { everything: out.join('\n'), seen: { events, serverEvents, unavailable } };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

function assertClean(everything: string, secrets: readonly string[], kubeconfigText: string): void {
  // What was gathered is the real thing: servers, routing, the 503 the port wrote, a snapshot.
  for (const expected of [
    'apiserver-new',
    'outcome',
    'ServiceUnavailable',
    'peerscope.dev/v1',
    'peerscope_requests_total',
    `token:${shortHash(CLIENT_TOKEN)}`,
  ])
    expect(everything).toContain(expected);
  expect(secrets.length).toBeGreaterThan(3);
  for (const secret of secrets) expect(everything.includes(secret), `leaked: ${secret.slice(0, 14)}…`).toBe(false);
  // Nothing of the kubeconfig's text either.
  for (const line of kubeconfigText
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 20)) {
    expect(everything.includes(line), `kubeconfig line leaked: ${line.slice(0, 30)}…`).toBe(false);
  }
  for (const field of [
    'client-certificate-data',
    'client-key-data',
    'current-context',
    'proxy-authorization',
    'Proxy-Authorization',
    CLIENT_TOKEN,
  ]) {
    expect(everything.includes(field), field).toBe(false);
  }
}

describe('no credential leaves the core', () => {
  let hidden: SimCluster;
  let plain: SimCluster;
  let proxy: ConnectProxy;
  let dir: string;
  const baseEnv = { ...process.env, HTTPS_PROXY: '', https_proxy: '', NO_PROXY: '', no_proxy: '' };

  beforeAll(async () => {
    hidden = await startSimCluster({
      releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')],
      names: ['old', 'new'],
      advertiseHost: HIDDEN,
    });
    plain = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['old', 'new'] });
    proxy = await startConnectProxy({ map: { [HIDDEN]: '127.0.0.1' } });
    dir = mkdtempSync(join(tmpdir(), 'leak-'));
  });
  afterAll(async () => {
    await proxy?.close();
    await hidden?.close();
    await plain?.close();
  });

  function kubeconfigFile(
    name: string,
    sim: SimCluster,
    user: Record<string, unknown>,
    cluster: (c: Record<string, unknown>) => void = () => undefined,
  ): { file: string; text: string } {
    const doc = parse(sim.kubeconfig({ user })) as { clusters: { cluster: Record<string, unknown> }[] };
    for (const c of doc.clusters) cluster(c.cluster);
    const text = stringify(doc);
    const file = join(dir, `${name}.kubeconfig`);
    writeFileSync(file, text, { mode: 0o600 });
    return { file, text };
  }

  it('a token and an inline client certificate and key, through a proxy-url with user and password', async () => {
    const cert = await hidden.issueClientCertificate('leak-check-a', ['system:masters']);
    const password = 'proxy-pass-5b8e11';
    const proxyUrl = `http://ops:${password}@127.0.0.1:${proxy.port}`;
    const { file, text } = kubeconfigFile(
      'a',
      hidden,
      { token: hidden.token, 'client-certificate-data': b64(cert.cert), 'client-key-data': b64(cert.key) },
      (c) => (c['proxy-url'] = proxyUrl),
    );
    proxy.targets.length = 0;
    const { everything, seen } = await exercise({ name: 'token + cert data + proxy-url', sim: hidden, kubeconfig: file, env: baseEnv });
    expect(proxy.targets.length).toBeGreaterThan(0); // the session really went through the proxy
    expect(seen.events).toBeGreaterThan(0);
    expect(seen.serverEvents).toBeGreaterThan(0);
    expect(seen.unavailable).toBe(1);
    expect(everything).toContain(`http://***@127.0.0.1:${proxy.port}`); // the proxy is named, redacted
    assertClean(everything, [hidden.token!, ...certSecrets(cert), password, `ops:${password}`, b64(`ops:${password}`)], text);
  }, 90_000);

  it('a token file and client certificate and key files', async () => {
    const cert = await plain.issueClientCertificate('leak-check-b');
    writeFileSync(join(dir, 'b.crt'), cert.cert);
    writeFileSync(join(dir, 'b.key'), cert.key, { mode: 0o600 });
    writeFileSync(join(dir, 'b.token'), `${plain.token}\n`, { mode: 0o600 });
    const { file, text } = kubeconfigFile('b', plain, {
      tokenFile: join(dir, 'b.token'),
      'client-certificate': join(dir, 'b.crt'),
      'client-key': join(dir, 'b.key'),
    });
    const { everything, seen } = await exercise({ name: 'tokenFile + cert files', sim: plain, kubeconfig: file, env: baseEnv });
    expect(seen.events).toBeGreaterThan(0);
    assertClean(everything, [plain.token!, ...certSecrets(cert)], text);
  }, 90_000);

  it("an exec plugin's token, through HTTPS_PROXY with user and password", async () => {
    const execToken = hidden.token!;
    const plugin = join(dir, 'issue-token.sh');
    writeFileSync(
      plugin,
      `#!/bin/sh\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"2099-01-01T00:00:00Z"}}' "${execToken}"\n`,
    );
    chmodSync(plugin, 0o700);
    const password = 'env-proxy-pass-c3a9';
    const oldPort = new URL(hidden.server('old').info().url).port;
    const { file, text } = kubeconfigFile(
      'c',
      hidden,
      { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' } },
      (c) => (c.server = `https://127.0.0.1:${oldPort}`),
    );
    proxy.targets.length = 0;
    const env = { ...baseEnv, HTTPS_PROXY: `http://ops:${password}@127.0.0.1:${proxy.port}` };
    const { everything, seen } = await exercise({ name: 'exec plugin + HTTPS_PROXY', sim: hidden, kubeconfig: file, env });
    expect(proxy.targets.length).toBeGreaterThan(0);
    expect(seen.events).toBeGreaterThan(0);
    assertClean(everything, [execToken, password, b64(`ops:${password}`), readFileSync(plugin, 'utf8').trim()], text);
  }, 90_000);
});
