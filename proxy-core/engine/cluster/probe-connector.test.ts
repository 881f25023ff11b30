// timedConnector over a stand-in for undici's connector whose every connect is told what to do:
// stay silent, connect (a real socket pair's end), or fail. Outcomes are asserted, not times.
import { createServer, connect, type Socket } from 'node:net';
import { once } from 'node:events';
import type { buildConnector as BuildConnector } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { timedConnector } from './probe-connector.js';

type Plan = 'silent' | 'connect' | 'refuse';

const opened: Socket[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.destroy();
});

async function realSocket(): Promise<Socket> {
  const server = createServer((s) => s.on('error', () => undefined));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as { port: number };
  const socket = connect(address.port, '127.0.0.1');
  await once(socket, 'connect');
  server.close();
  opened.push(socket);
  return socket;
}

/** A connector whose n-th connect follows plans[n]; `calls` counts the connects made. */
function standIn(plans: Plan[]): { connector: BuildConnector.connector; calls: () => number; late: Socket[] } {
  let n = 0;
  const late: Socket[] = [];
  const connector: BuildConnector.connector = (_options, callback) => {
    const plan = plans[n++] ?? 'silent';
    if (plan === 'refuse')
      setImmediate(() => callback(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), null));
    if (plan === 'connect') void realSocket().then((s) => callback(null, s as never));
    // A silent connect connects after all, much later: its socket must not be kept.
    if (plan === 'silent')
      setTimeout(() => {
        void realSocket().then((s) => {
          late.push(s);
          callback(null, s as never);
        });
      }, 1_000);
  };
  return { connector, calls: () => n, late };
}

function run(connector: BuildConnector.connector): Promise<{ error: Error | null; socket: Socket | null }> {
  return new Promise((resolve) => {
    connector({ hostname: 'kube-a', host: 'kube-a', protocol: 'https:', port: '6443', servername: 'kube-a' } as never, (...args) =>
      resolve({ error: args[0], socket: args[1] as unknown as Socket | null }),
    );
  });
}

describe('timedConnector', () => {
  it('a connect that answers at once is the only one', async () => {
    const s = standIn(['connect']);
    const r = await run(timedConnector(s.connector, 200, 100));
    expect(r.error).toBeNull();
    expect(r.socket?.destroyed).toBe(false);
    expect(s.calls()).toBe(1);
  });

  it('a refusal is reported at once, with no second connect', async () => {
    const s = standIn(['refuse', 'connect']);
    const r = await run(timedConnector(s.connector, 200, 100));
    expect((r.error as NodeJS.ErrnoException | null)?.code).toBe('ECONNREFUSED');
    expect(s.calls()).toBe(1);
  });

  it('a first connect still silent halfway gets a second beside it, which wins; the first, connecting late, is closed', async () => {
    const s = standIn(['silent', 'connect']);
    const r = await run(timedConnector(s.connector, 3_000, 50));
    expect(r.error).toBeNull();
    expect(s.calls()).toBe(2);
    expect(r.socket?.destroyed).toBe(false);
    await expect.poll(() => s.late.length, { timeout: 5_000 }).toBe(1);
    expect(s.late[0]?.destroyed).toBe(true);
  });

  it('the second connect failing while the first is still under way waits for the first', async () => {
    const s = standIn(['silent', 'refuse']);
    // The first connects after 1 s, within the timeout: the probe succeeds.
    const r = await run(timedConnector(s.connector, 3_000, 50));
    expect(r.error).toBeNull();
    expect(s.calls()).toBe(2);
    expect(s.late[0]).toBe(r.socket);
  });

  it('both silent for the whole timeout: UND_ERR_CONNECT_TIMEOUT naming the server', async () => {
    const s = standIn(['silent', 'silent']);
    const r = await run(timedConnector(s.connector, 100, 50));
    expect((r.error as NodeJS.ErrnoException | null)?.code).toBe('UND_ERR_CONNECT_TIMEOUT');
    expect(r.error?.message).toBe('no connection to kube-a:6443 within 100 ms (TCP and TLS handshake)');
    expect(s.calls()).toBe(2);
    // Both connect late; neither is kept.
    await expect.poll(() => s.late.length, { timeout: 5_000 }).toBe(2);
    expect(s.late.every((x) => x.destroyed)).toBe(true);
  });
});
