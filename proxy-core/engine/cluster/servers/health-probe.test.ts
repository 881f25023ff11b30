// The health probe against a real HTTP server whose readiness and release the test changes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startHttpUpstream } from '../../../test/upstream-fixtures.js';
import { AgentServerReader } from '../server-reader.js';
import { HealthProbe, readReadyz } from './health-probe.js';

const READY_BODY = '[+]ping ok\n[+]etcd ok\n[+]poststarthook/start-apiserver-admission-initializer ok\nreadyz check passed\n';

interface Script {
  ready: number;
  body: string;
  version: string;
  down?: boolean;
  hold?: Promise<void>;
}

/** A server whose /readyz status and body and /version are whatever `state` says now; `down` drops every connection. */
function scripted(state: Script) {
  return (req: IncomingMessage, res: ServerResponse) => void answer(state, req, res);
}

async function answer(state: Script, req: IncomingMessage, res: ServerResponse): Promise<void> {
  await state.hold;
  if (state.down) {
    req.socket.destroy();
    return;
  }
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/readyz') res.writeHead(state.ready).end(state.body);
  else if (path === '/version')
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ gitVersion: state.version }));
  else res.writeHead(404).end();
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

function reader(url: string): AgentServerReader {
  const c = new AgentServerReader({ name: 'a', url }, 2_000);
  cleanups.push(() => c.close());
  return c;
}

describe('readReadyz', () => {
  it('lists the checks of a ready server', () => {
    expect(readReadyz(200, READY_BODY)).toEqual({
      health: 'ready',
      failingChecks: [],
      checks: ['ping', 'etcd', 'poststarthook/start-apiserver-admission-initializer'],
    });
  });

  it('tells a draining server (a failing shutdown check) from one not ready', () => {
    expect(readReadyz(500, '[+]ping ok\n[-]shutdown failed: reason withheld\n').health).toBe('draining');
    const notReady = readReadyz(500, '[+]ping ok\n[-]etcd failed: reason withheld\n');
    expect(notReady).toEqual({ health: 'not-ready', failingChecks: ['etcd'], checks: ['ping', 'etcd'] });
  });

  it('lists no checks when a failing body names none', () => {
    expect(readReadyz(503, 'service unavailable')).toEqual({ health: 'not-ready', failingChecks: [] });
  });
});

describe('HealthProbe', () => {
  it('follows a server through ready, a new release, draining, down and back, telling when to read it again', async () => {
    const state: Script = { ready: 200, body: READY_BODY, version: 'v1.36.0' };
    const server = await startHttpUpstream(scripted(state));
    cleanups.push(() => server.close());
    const changes: string[] = [];
    const returns: string[] = [];
    const probe = new HealthProbe({ onChange: (n) => changes.push(n), onReturn: (n) => returns.push(n) });
    probe.add('a');
    const c = reader(server.url);

    await probe.probe('a', c);
    expect(probe.of('a')).toMatchObject({
      health: 'ready',
      gitVersion: 'v1.36.0',
      readyChecks: ['ping', 'etcd', 'poststarthook/start-apiserver-admission-initializer'],
    });
    expect([changes.length, returns.length]).toEqual([1, 1]);

    await probe.probe('a', c);
    expect([changes.length, returns.length]).toEqual([1, 1]);

    state.version = 'v1.37.0';
    await probe.probe('a', c);
    expect(probe.of('a')?.gitVersion).toBe('v1.37.0');
    expect([changes.length, returns.length]).toEqual([2, 2]);

    Object.assign(state, { ready: 500, body: '[+]ping ok\n[-]shutdown failed: reason withheld\n' });
    await probe.probe('a', c);
    expect(probe.of('a')).toMatchObject({ health: 'draining', failingChecks: ['shutdown'] });

    state.down = true;
    await probe.probe('a', c);
    expect(probe.health('a')).toBe('unreachable');
    expect(probe.of('a')?.lastError).toMatch(/other side closed|ECONNRESET/);
    expect(returns).toHaveLength(2);

    Object.assign(state, { ready: 200, body: READY_BODY, down: false });
    await probe.probe('a', c);
    expect(probe.health('a')).toBe('ready');
    expect(returns).toEqual(['a', 'a', 'a']);

    const history = probe.history('a');
    expect(history.map((s) => s.health)).toEqual(['ready', 'ready', 'ready', 'draining', 'unreachable', 'ready']);
    expect(history[4]?.latencyMs).toBeUndefined();
    expect(history[5]?.latencyMs).toBeGreaterThan(0);
  });

  it('drops a probe that lands after its server went away, or was removed and added again', async () => {
    let release: () => void = () => undefined;
    const state = { ready: 200, body: READY_BODY, version: 'v1.36.0', hold: new Promise<void>((r) => (release = r)) };
    const server = await startHttpUpstream(scripted(state));
    cleanups.push(() => server.close());
    const probe = new HealthProbe();
    probe.add('a');
    probe.add('b');
    const c = reader(server.url);
    const running = [probe.probe('a', c), probe.probe('b', c)];
    probe.markGone('a', 'its lease expired', 1_000);
    probe.forget('b');
    probe.add('b');
    release();
    await Promise.all(running);
    expect(probe.of('a')).toMatchObject({ health: 'gone', lastError: 'gone: its lease expired', lastProbeAt: 1_000 });
    expect(probe.health('b')).toBe('unknown');
    // A gone server is not probed at all until it is back.
    await probe.probe('a', c);
    expect(probe.health('a')).toBe('gone');
    probe.markBack('a');
    expect(probe.of('a')).toMatchObject({ health: 'unknown', failingChecks: [] });
    expect(probe.of('a')?.lastError).toBeUndefined();
  });

  it('marks a server unreachable when a forward could not connect, once', async () => {
    const probe = new HealthProbe();
    probe.add('a');
    expect(probe.reportUnreachable('a', 'connect ECONNREFUSED')).toBe(true);
    expect(probe.reportUnreachable('a', 'connect ECONNREFUSED')).toBe(false);
    // The cause first, in kubectl's words (reachability.ts), then the error as the forward saw it.
    expect(probe.of('a')).toMatchObject({
      health: 'unreachable',
      lastError: 'connection refused (nothing listens there): connect ECONNREFUSED',
      unreachable: { cause: 'refused' },
    });
    probe.add('g');
    probe.markGone('g', 'left', Date.now());
    expect(probe.reportUnreachable('g', 'connect ECONNREFUSED')).toBe(false);
    expect(probe.history('a').map((s) => s.health)).toEqual(['unreachable']);
  });

  it('reports an unreachable server with the connection error', async () => {
    const probe = new HealthProbe();
    probe.add('a');
    await probe.probe('a', reader(`http://127.0.0.1:${await freePort()}`));
    expect(probe.of('a')).toMatchObject({ health: 'unreachable', lastError: expect.stringMatching(/ECONNREFUSED/) });
  });
});
