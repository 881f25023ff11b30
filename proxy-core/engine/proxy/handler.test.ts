import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Telemetry } from '../telemetry/telemetry.js';
import type { ProxyContext } from './context.js';
import { createHandler, REQUEST_STEPS, runSteps, UPGRADE_STEPS } from './handler.js';
import { newExchange, type RequestExchange } from './exchange.js';
import { ROUTE_HEADER } from './route-header.js';
import { classify, decode } from './steps/read.js';
import { pickHandling, settle } from './steps/route.js';
import { ANSWERED, stepList, type ListedStep, type Step } from './steps/step.js';
import { tunnelUpgrade } from './steps/tunnel.js';

describe('the request path as steps', () => {
  it('runs the steps in the order handler.ts says', () => {
    expect(REQUEST_STEPS.map((s) => s.name)).toEqual([
      'absolute-target',
      'request-head',
      'decode-path',
      'classify',
      'host-check',
      'origin-check',
      'request-filter',
      'strip-identity',
      'own-endpoints',
      'pick-handling-server',
      'settle-decision',
      'serve-merged',
      'forward',
    ]);
    expect(UPGRADE_STEPS.map((s) => s.name)).toEqual([
      'upgrade-target',
      'request-head',
      'classify',
      'host-check',
      'origin-check',
      'request-filter',
      'strip-identity',
      'pick-handling-server',
      'settle-decision',
      'tunnel',
    ]);
  });

  it('refuses, when compiled, a list whose step needs what no step before it fills', () => {
    // @ts-expect-error settle-decision needs the class, which classify fills only after it
    const misordered: readonly ListedStep<RequestExchange>[] = stepList<RequestExchange>()(decode, pickHandling, settle, classify);
    // @ts-expect-error the tunnel runs on an upgrade's exchange, not a plain request's
    const wrongKind = stepList<RequestExchange>()(decode, classify, pickHandling, settle, tunnelUpgrade);
    expect([misordered, wrongKind].map((l) => (l as unknown as Step[]).length)).toEqual([4, 5]);
  });

  it('stays synchronous until a step waits, goes on after the wait, stops at the first refusal or answer', async () => {
    const ran: string[] = [];
    const step = (name: string, result?: ReturnType<Step['run']>): Step => ({ name, run: () => (ran.push(name), result) });
    const x = newExchange({ url: '/a', method: 'GET', headers: {} } as never, undefined, undefined, undefined);
    const ctx = {} as ProxyContext;
    expect(runSteps([step('a'), step('b', ANSWERED), step('c')], x, ctx)).toBe(ANSWERED);
    expect(ran).toEqual(['a', 'b']);
    ran.length = 0;
    const waited = runSteps([step('a'), step('wait', Promise.resolve(undefined)), step('c', ANSWERED), step('d')], x, ctx);
    expect(waited).toBeInstanceOf(Promise);
    expect(await waited).toBe(ANSWERED);
    expect(ran).toEqual(['a', 'wait', 'c']);
  });
});

describe('createHandler: the glue', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function serve(ctx: Partial<ProxyContext>): Promise<number> {
    const telemetry = ctx.telemetry ?? new Telemetry(100);
    const handler = createHandler({
      telemetry,
      settings: { discoveryMode: 'peer-aggregated', acceptHosts: [], acceptOrigins: [], filter: { rejectPaths: [], rejectMethods: [] } },
      listenerPort: () => port,
      ...ctx,
    } as ProxyContext);
    server = createServer((req, res) => void handler.onRequest(req, res));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    return port;
  }

  function get(
    port: number,
    path: string,
    host: string,
  ): Promise<{ status: number; route: string | undefined; body: { kind?: string; code?: number; message?: string } }> {
    return new Promise((resolve, reject) => {
      request({ port, host: '127.0.0.1', path, headers: { host } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            route: res.headers[ROUTE_HEADER.toLowerCase()] as string | undefined,
            body: JSON.parse(text),
          }),
        );
      })
        .on('error', reject)
        .end();
    });
  }

  it("writes a step's refusal as a Status with X-Peerscope-Route and records it as one routing event", async () => {
    const telemetry = new Telemetry(100);
    const port = await serve({ telemetry });
    const answer = await get(port, '/api/v1/namespaces/default/pods', 'evil.example:80');
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ kind: 'Status', code: 403 });
    expect(answer.route).toContain('rejected');
    const events = telemetry.recent();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ outcome: 'rejected', status: 403, resource: 'pods', namespace: 'default', handling: null });
  });

  it("answers the port's own unknown endpoint with a 404 Status and records no routing event", async () => {
    const telemetry = new Telemetry(100);
    const port = await serve({ telemetry });
    const answer = await get(port, '/.peerscope/nothing', `127.0.0.1:${port}`);
    expect(answer.status).toBe(404);
    expect(answer.body.message).toContain('/.peerscope/metrics');
    expect(telemetry.recent()).toHaveLength(0);
  });

  it('turns a step that throws into a 500 InternalError Status, recorded with the cause', async () => {
    const telemetry = new Telemetry(100);
    const port = await serve({
      telemetry,
      listenerPort: () => {
        throw new Error('no port yet');
      },
    });
    const answer = await get(port, '/api/v1/pods', 'localhost');
    expect(answer).toMatchObject({ status: 500, body: { kind: 'Status', message: 'peerscope: no port yet' } });
    expect(telemetry.recent()[0]).toMatchObject({ status: 500, error: 'no port yet' });
  });
});
