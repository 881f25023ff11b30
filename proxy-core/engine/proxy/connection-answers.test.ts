// The connection-level answers on real sockets: a Status for a broken request must not cut a
// connection that a lingering close is already ending (its answers would be lost to a reset).
import { once } from 'node:events';
import { createServer, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { failure } from '../util/status.js';
import { answerAndClose, closeLingering, ResponseQueue } from './connection-answers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function socketPair(): Promise<{ server: Socket; client: Socket }> {
  const listener = createServer();
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const accepted = once(listener, 'connection') as Promise<[Socket]>;
  const client = connect((listener.address() as { port: number }).port, '127.0.0.1');
  const [server] = await accepted;
  cleanups.push(() => {
    client.destroy();
    server.destroy();
    listener.close();
  });
  return { server, client };
}

describe('answerAndClose', () => {
  it('leaves a connection that a lingering close is already ending to that close: every byte reaches the client', async () => {
    const { server, client } = await socketPair();
    client.pause();
    // Bytes the client sent that the server has not read yet (it stopped reading, as Node's server
    // does while a large answer is under way): closing now would make the kernel reset the connection.
    server.pause();
    client.write(Buffer.alloc(64 * 1024, 0x61));
    await new Promise((r) => setTimeout(r, 50));
    const answer = Buffer.alloc(4 * 1024 * 1024, 0x62);
    closeLingering(server);
    server.write(answer);
    // Node's server ends a connection after an answer that closes it (an unmet 100-continue)…
    (server as Socket & { destroySoon(): void }).destroySoon();
    // …and the request behind it was malformed: its Status arrives after the end.
    answerAndClose(new ResponseQueue(), server, failure(400, 'BadRequest', 'malformed request'));
    let received = 0;
    let error: string | undefined;
    client.on('data', (c: Buffer) => (received += c.length));
    client.on('error', (e: NodeJS.ErrnoException) => (error = e.code));
    client.resume();
    await once(client, 'close');
    expect(error).toBeUndefined();
    expect(received).toBe(answer.length);
  });
});
