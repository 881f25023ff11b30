// A method is one table row plus one service method: a table with a row the contract does not have
// yields a typed client and a dispatcher for it, wired here through a real HTTP socket (JSON both
// ways), with arguments refused by the row's schema and answers checked against it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { coreClientMethods } from '../contract/client.js';
import { PeerscopeError, toCallError, fromCallError, callErrorSchema } from '../contract/errors.js';
import { buildClient, buildDispatcher, clientFromHandlers, type CallsOf } from '../contract/rpc.js';

const table = {
  ...coreClientMethods,
  /** The row a newcomer adds. */
  countWords: {
    args: z.object({ text: z.string().max(100), separator: z.string().optional() }),
    result: z.object({ words: z.number().int() }),
  },
  ping: { args: undefined, result: z.literal('pong') },
} as const;

type Service = Pick<CallsOf<typeof table>, 'countWords' | 'ping'>;

describe('a table row becomes a client method and a dispatched call', () => {
  const asked: unknown[] = [];
  let answerWrongly = false;
  const service: Service = {
    async countWords({ text, separator }) {
      asked.push({ text, separator });
      if (answerWrongly) return { words: 'many' } as unknown as { words: number };
      return { words: text.split(separator ?? ' ').filter(Boolean).length };
    },
    async ping() {
      return 'pong';
    },
  };
  // Only the two new rows are served; the rest of the core's table is not this test's business.
  const dispatch = buildDispatcher(table, service as CallsOf<typeof table>);
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const method = req.url!.slice(1);
        dispatch(method as keyof typeof table & string, body ? JSON.parse(body) : undefined).then(
          (result) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result)),
          (error: unknown) =>
            res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: toCallError(error, method) })),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const client = buildClient(table, async (method, input) => {
    const res = await fetch(`${url}/${method}`, { method: 'POST', body: input === undefined ? '' : JSON.stringify(input) });
    const body: unknown = await res.json();
    if (!res.ok) throw fromCallError(callErrorSchema.parse((body as { error: unknown }).error));
    return body;
  });

  it('calls the new method with its argument object and returns its validated answer', async () => {
    await expect(client.countWords({ text: 'one two  three' })).resolves.toEqual({ words: 3 });
    await expect(client.countWords({ text: 'a,b', separator: ',' })).resolves.toEqual({ words: 2 });
    await expect(client.ping()).resolves.toBe('pong');
    expect(asked).toEqual([
      { text: 'one two  three', separator: undefined },
      { text: 'a,b', separator: ',' },
    ]);
  });

  it("refuses arguments the row's schema refuses, before the service is asked", async () => {
    asked.length = 0;
    const tooLong = client.countWords({ text: 'x'.repeat(101) });
    await expect(tooLong).rejects.toBeInstanceOf(PeerscopeError);
    await expect(tooLong).rejects.toMatchObject({
      code: 'PEERSCOPE_ERR_INVALID_ARGUMENTS',
      message: expect.stringMatching(/^invalid arguments for countWords: text: /),
    });
    await expect(dispatch('countWords', { text: 42 })).rejects.toMatchObject({ code: 'PEERSCOPE_ERR_INVALID_ARGUMENTS' });
    await expect(dispatch('ping', { unexpected: true })).rejects.toMatchObject({
      code: 'PEERSCOPE_ERR_INVALID_ARGUMENTS',
      message: 'ping takes no arguments',
    });
    await expect(dispatch('ping', {})).resolves.toBe('pong');
    await expect(dispatch('noSuchRow' as 'ping', undefined)).rejects.toMatchObject({ code: 'PEERSCOPE_ERR_NO_METHOD' });
    expect(asked).toEqual([]);
  });

  it("refuses an answer that does not match the row's result schema", async () => {
    answerWrongly = true;
    try {
      await expect(client.countWords({ text: 'a b' })).rejects.toMatchObject({
        code: 'PEERSCOPE_ERR_BAD_ANSWER',
        message: expect.stringContaining('countWords'),
      });
    } finally {
      answerWrongly = false;
    }
  });

  it('derives every method of the core contract the same way', () => {
    const names = Object.keys(buildClient(coreClientMethods, async () => undefined)).sort();
    expect(names).toEqual(Object.keys(coreClientMethods).sort());
  });
});

describe('clientFromHandlers: an in-process client from the table', () => {
  it('answers the methods it has handlers for and sends every other one, the new row included, to the fallback', async () => {
    const refused: string[] = [];
    const client = clientFromHandlers(table, { countWords: async ({ text }) => ({ words: text.split(' ').length }) }, (method) => {
      refused.push(method);
      return Promise.reject(new PeerscopeError('PEERSCOPE_ERR_OFFLINE', `${method} is not answered here`));
    });
    expect(await client.countWords({ text: 'one two three' })).toEqual({ words: 3 });
    await expect(client.startRollout()).rejects.toThrow('startRollout is not answered here');
    expect(Object.keys(client).sort()).toEqual(Object.keys(table).sort());
    expect(refused).toEqual(['startRollout']);
  });
});
