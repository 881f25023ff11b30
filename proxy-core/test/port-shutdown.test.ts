// What Core.close() does to each kind of connection (issue 20, shutdown): long-running ones — a
// watch, an exec tunnel — end at once; a short request still under way gets its grace and its answer;
// idle keep-alive connections are closed. Before, an open tunnel held close() for the whole grace:
// Node's server forgets an upgraded socket, so closeAllConnections() never reached it.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A_GVRS, startBed, type Bed } from './harness.js';

let bed: Bed;
beforeAll(async () => {
  bed = await startBed({ a: A_GVRS });
  expect(
    (
      await bed.send(
        'POST',
        '/api/v1/namespaces/default/pods',
        { 'content-type': 'application/json' },
        JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'shell' } }),
      )
    ).status,
  ).toBe(201);
});
afterAll(async () => {
  await bed?.close();
});

function closedAt(socket: Socket): Promise<number> {
  return new Promise((resolve) => socket.once('close', () => resolve(performance.now())));
}

describe('closing the port', () => {
  it('ends watches and tunnels at once, lets a short request finish, closes idle connections', async () => {
    const port = Number(new URL(bed.url).port);
    const host = `Host: 127.0.0.1:${port}`;
    // An exec tunnel, open.
    const shell = connect(port, '127.0.0.1');
    const shellClosed = closedAt(shell);
    await new Promise<void>((resolve) => {
      shell.on('data', (c: Buffer) => c.toString().startsWith('HTTP/1.1 101') && resolve());
      shell.write(
        `GET /api/v1/namespaces/default/pods/shell/exec?command=sh HTTP/1.1\r\n${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`,
      );
    });
    // A watch, open.
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const watch = await request(`${bed.url}/api/v1/namespaces/default/configmaps?watch=true`, { dispatcher: agent });
    expect(watch.statusCode).toBe(200);
    const watchEnded = new Promise<number>((resolve) => {
      watch.body
        .on('end', () => resolve(performance.now()))
        .on('error', () => resolve(performance.now()))
        .resume();
    });
    // Idle keep-alive connections.
    await Promise.all(
      Array.from({ length: 4 }, () => request(`${bed.url}/api/v1/namespaces`, { dispatcher: agent }).then((r) => r.body.text())),
    );
    // A short request under way: its body is not all sent yet.
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } });
    const slow = connect(port, '127.0.0.1');
    let slowAnswer = '';
    slow.on('data', (c: Buffer) => (slowAnswer += c.toString()));
    const slowClosed = closedAt(slow);
    slow.write(
      `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\n${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 100));

    const started = performance.now();
    const closing = bed.core.close(10_000).then(() => performance.now());
    // The rest of the body comes 300 ms into the shutdown.
    await new Promise((r) => setTimeout(r, 300));
    const bodySent = performance.now();
    slow.write(body.slice(10));
    const [watchAt, shellAt, slowAt, closedAtMs] = await Promise.all([watchEnded, shellClosed, slowClosed, closing]);
    await agent.close();

    expect(watchAt).toBeLessThan(bodySent);
    expect(shellAt).toBeLessThan(bodySent);
    expect(slowAnswer).toMatch(/^HTTP\/1\.1 201 Created\r\n/);
    expect(slowAt).toBeGreaterThan(bodySent);
    // Not the 10 s grace: done once the short request was answered.
    console.log(
      `close(): watch ended after ${(watchAt - started).toFixed(0)} ms, tunnel ${(shellAt - started).toFixed(0)} ms, short request answered, close() done after ${(closedAtMs - started).toFixed(0)} ms`,
    );
    expect(closedAtMs - bodySent).toBeLessThan(5_000);
  });
});
