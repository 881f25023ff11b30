// The CRD/APIService watch against a real HTTP server that lists, streams watch events, ends a watch,
// answers 410 and refuses, as kube-apiserver does.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpUpstream } from '../../../test/upstream-fixtures.js';
import { AgentServerReader } from '../server-reader.js';
import { ApiWatch, WATCHED_APIS } from './api-watch.js';

const CRDS = WATCHED_APIS[0].path;
const API_SERVICES = WATCHED_APIS[1].path;

/** What the stand-in does with each request, and what it saw. */
interface Script {
  lists: { path: string; query: string }[];
  watches: { path: string; resourceVersion: string | null }[];
  /** Per watched path: the status of its list and watch (200 unless set). */
  status: Map<string, number>;
  /** Open watch streams of the CRD path, newest last. */
  open: ServerResponse[];
  listVersion: string;
}

function script(): Script {
  return { lists: [], watches: [], status: new Map(), open: [], listVersion: '100' };
}

function handler(state: Script) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://x');
    const status = state.status.get(url.pathname) ?? 200;
    if (status !== 200) {
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `${url.pathname} is forbidden`, code: status }),
        );
      return;
    }
    if (url.searchParams.get('watch') === '1') {
      state.watches.push({ path: url.pathname, resourceVersion: url.searchParams.get('resourceVersion') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      if (url.pathname === CRDS) state.open.push(res);
      return;
    }
    state.lists.push({ path: url.pathname, query: url.search });
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: state.listVersion }, items: [] }));
  };
}

function event(type: string, resourceVersion: string): string {
  return `${JSON.stringify({ type, object: { kind: 'CustomResourceDefinition', metadata: { name: 'things.example.io', resourceVersion } } })}\n`;
}

async function until(condition: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(state: Script) {
  const server = await startHttpUpstream(handler(state));
  const client = new AgentServerReader({ name: 'server-a', url: server.url }, 2_000);
  const rereads: number[] = [];
  const notices: string[] = [];
  const watch = new ApiWatch({
    through: () => client,
    reread: async () => void rereads.push(Date.now()),
    notice: (line) => notices.push(line),
    periodMs: 30_000,
    rereadDelaysMs: [0, 20],
    retryMs: 20,
  });
  cleanups.push(
    () => server.close(),
    () => client.close(),
    async () => {
      for (const r of state.open) r.destroy();
      await watch.close();
    },
  );
  watch.start();
  return { watch, rereads, notices };
}

describe('ApiWatch', () => {
  it('lists once for the resourceVersion (limit=1), watches from it, and re-reads discovery on each change', async () => {
    const state = script();
    const { watch, rereads } = await setup(state);
    await until(() => state.open.length === 1, 'the CRD watch');
    expect(state.lists.find((l) => l.path === CRDS)?.query).toBe('?limit=1');
    expect(state.watches.find((w) => w.path === CRDS)?.resourceVersion).toBe('100');
    expect(state.watches.map((w) => w.path).sort()).toEqual([API_SERVICES, CRDS].sort());
    // Each list stands for what changed before it (after the core's first read): each scheduled
    // delay re-reads once, two per list here.
    await until(() => rereads.length === 4, 'two re-reads after each first list');
    await new Promise((r) => setTimeout(r, 50));
    expect(rereads).toHaveLength(4);
    state.open[0]!.write(event('ADDED', '101'));
    await until(() => rereads.length === 6, 'two re-reads after the event');
    expect(watch.events).toBe(1);
    expect(watch.state('customresourcedefinitions')).toBe('watching');
  });

  it('a bookmark moves the resourceVersion without a re-read; a watch the server ends is opened again from the last one', async () => {
    const state = script();
    const { rereads } = await setup(state);
    await until(() => state.open.length === 1 && rereads.length === 4, 'the CRD watch, the first lists re-read');
    state.open[0]!.write(event('BOOKMARK', '150'));
    await new Promise((r) => setTimeout(r, 50));
    expect(rereads).toHaveLength(4);
    state.open[0]!.write(event('MODIFIED', '151'));
    await until(() => rereads.length === 6, 're-reads after MODIFIED');
    state.open[0]!.end();
    await until(() => state.open.length === 2, 'the watch opened again');
    expect(state.watches.filter((w) => w.path === CRDS).map((w) => w.resourceVersion)).toEqual(['100', '151']);
    // Not listed again: the resourceVersion was still good.
    expect(state.lists.filter((l) => l.path === CRDS)).toHaveLength(1);
  });

  it('410 Gone lists again and re-reads (a change may have been missed)', async () => {
    const state = script();
    const { rereads } = await setup(state);
    await until(() => state.open.length === 1 && rereads.length === 4, 'the CRD watch, the first lists re-read');
    state.listVersion = '900';
    state.open[0]!.end(
      `${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' } })}\n`,
    );
    await until(() => state.open.length === 2, 'the watch after the re-list');
    expect(state.lists.filter((l) => l.path === CRDS)).toHaveLength(2);
    expect(state.watches.filter((w) => w.path === CRDS).map((w) => w.resourceVersion)).toEqual(['100', '900']);
    await until(() => rereads.length === 6, 're-reads after the re-list');
  });

  it('RBAC refusal: one line saying discovery is re-read on the period only, and that watch stops', async () => {
    const state = script();
    state.status.set(API_SERVICES, 403);
    const { watch, notices } = await setup(state);
    await until(() => state.open.length === 1 && notices.length === 1, 'the CRD watch and the notice');
    expect(notices).toEqual([
      'cannot watch apiservices through server-a (HTTP 403: /apis/apiregistration.k8s.io/v1/apiservices is forbidden); their changes show in discovery at the periodic re-read (every 30 s)',
    ]);
    expect(watch.state('apiservices')).toBe('refused');
    expect(watch.state('customresourcedefinitions')).toBe('watching');
    expect(state.watches.filter((w) => w.path === API_SERVICES)).toEqual([]);
  });
});

describe('ApiWatch on a server without the API', () => {
  it('404 (a simulated server): stops quietly, no line', async () => {
    const state = script();
    state.status.set(CRDS, 404);
    state.status.set(API_SERVICES, 404);
    const { watch, notices } = await setup(state);
    await until(() => watch.state('customresourcedefinitions') === 'refused' && watch.state('apiservices') === 'refused', 'both to stop');
    expect(notices).toEqual([]);
    expect(state.watches).toEqual([]);
  });
});

describe('ApiWatch on a server that ends every watch at once', () => {
  it('backs off instead of asking again in a tight loop', async () => {
    const state = script();
    const server = await startHttpUpstream((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.searchParams.get('watch') === '1')
        state.watches.push({ path: url.pathname, resourceVersion: url.searchParams.get('resourceVersion') });
      else state.lists.push({ path: url.pathname, query: url.search });
      // Every answer a plain list, the watch included: the stream ends at once.
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]}\n');
    });
    const client = new AgentServerReader({ name: 'server-a', url: server.url }, 2_000);
    const watch = new ApiWatch({
      through: () => client,
      reread: async () => undefined,
      notice: () => undefined,
      periodMs: 30_000,
      retryMs: 200,
      maxRetryMs: 400,
    });
    cleanups.push(
      () => server.close(),
      () => client.close(),
      () => watch.close(),
    );
    watch.start();
    await until(() => state.watches.filter((w) => w.path === CRDS).length >= 3, 'three watches of CRDs');
    // Each watch that ended at once was followed by a back-off before the next: never a tight loop.
    expect(watch.backoffs).toBeGreaterThanOrEqual(2);
  });
});

describe('ApiWatch when the server it watches through is found unreachable', () => {
  it('ends those watches and opens them again through the server that is ready', async () => {
    const a = script();
    const b = script();
    const serverA = await startHttpUpstream(handler(a));
    const serverB = await startHttpUpstream(handler(b));
    const clientA = new AgentServerReader({ name: 'server-a', url: serverA.url }, 2_000);
    const clientB = new AgentServerReader({ name: 'server-b', url: serverB.url }, 2_000);
    let ready: AgentServerReader = clientA;
    const watch = new ApiWatch({
      through: () => ready,
      reread: async () => undefined,
      notice: () => undefined,
      periodMs: 30_000,
      retryMs: 20,
    });
    cleanups.push(
      () => serverA.close(),
      () => serverB.close(),
      () => clientA.close(),
      () => clientB.close(),
      async () => {
        for (const r of [...a.open, ...b.open]) r.destroy();
        await watch.close();
      },
    );
    watch.start();
    await until(() => a.open.length === 1, 'the CRD watch through server-a');
    // server-a goes silent (its stream stays open, nothing more comes): the probes find it unreachable.
    ready = clientB;
    watch.serverDown('server-a');
    await until(() => b.open.length === 1, 'the CRD watch through server-b');
    expect(b.watches.map((w) => w.path).sort()).toEqual([API_SERVICES, CRDS].sort());
  });
});
