// The discovery cache against a real HTTP server whose discovery the test changes or breaks.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpUpstream } from '../../../test/upstream-fixtures.js';
import { AgentServerReader } from '../server-reader.js';
import { DiscoveryCache } from './discovery-cache.js';

function apis(resources: readonly string[]): string {
  return JSON.stringify({
    apiVersion: 'apidiscovery.k8s.io/v2',
    kind: 'APIGroupDiscoveryList',
    metadata: {},
    items: [
      {
        metadata: { name: 'example.io' },
        versions: [{ version: 'v1', resources: resources.map((resource) => ({ resource, scope: 'Namespaced', verbs: ['list'] })) }],
      },
    ],
  });
}
const API = JSON.stringify({ apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items: [] });

interface Script {
  resources: string[];
  status: number;
  reads: number;
  hold?: Promise<void>;
}

function scripted(state: Script) {
  return (req: IncomingMessage, res: ServerResponse) => void answer(state, req, res);
}

async function answer(state: Script, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  // The legacy /apis read with the registrations (discovery/fetch.ts) is not the read counted here.
  const aggregated = (req.headers.accept ?? '').includes('as=APIGroupDiscoveryList');
  if (path === '/apis' && aggregated) {
    state.reads++;
    await state.hold;
    if (state.status !== 200) res.writeHead(state.status).end('etcd is down');
    else res.writeHead(200, { 'content-type': 'application/json' }).end(apis(state.resources));
  } else if (path === '/api') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(API);
  } else {
    res.writeHead(404).end();
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function setup(state: Script) {
  const server = await startHttpUpstream(scripted(state));
  const reader = new AgentServerReader({ name: 'a', url: server.url }, 2_000);
  cleanups.push(
    () => reader.close(),
    () => server.close(),
  );
  const changes: string[] = [];
  const cache = new DiscoveryCache({ onChange: (n) => changes.push(n) });
  cache.add('a');
  return { reader, cache, changes };
}

describe('DiscoveryCache', () => {
  it('keeps the last document, marked stale, when a read fails, and tells each change once', async () => {
    const state: Script = { resources: ['things'], status: 200, reads: 0 };
    const { reader, cache, changes } = await setup(state);
    expect(cache.document('a')).toBeUndefined();

    await cache.refresh('a', reader);
    expect(cache.document('a')?.gvrs).toEqual([{ group: 'example.io', version: 'v1', resource: 'things' }]);
    expect(changes).toEqual(['a']);

    // The same content again: nothing to tell.
    await cache.refresh('a', reader);
    expect(changes).toEqual(['a']);

    state.status = 500;
    await cache.refresh('a', reader);
    await cache.refresh('a', reader);
    expect(cache.of('a')?.error).toMatch(/HTTP 500/);
    expect(cache.document('a')?.gvrs).toHaveLength(1);
    // Stale once, not once per failed read.
    expect(changes).toEqual(['a', 'a']);

    Object.assign(state, { status: 200, resources: ['things', 'widgets'] });
    await cache.refresh('a', reader);
    expect(cache.of('a')?.error).toBeUndefined();
    expect(cache.document('a')?.gvrs.map((g) => g.resource)).toEqual(['things', 'widgets']);
    expect(changes).toEqual(['a', 'a', 'a']);
  });

  it('shares a read under way among those who ask for one', async () => {
    let release: () => void = () => undefined;
    const state: Script = { resources: ['things'], status: 200, reads: 0, hold: new Promise<void>((r) => (release = r)) };
    const { reader, cache } = await setup(state);
    const asks = Array.from({ length: 5 }, () => cache.refresh('a', reader));
    expect(cache.of('a')?.inFlight).toBe(asks[0]);
    release();
    await Promise.all(asks);
    expect(state.reads).toBe(1);
    expect(cache.of('a')?.inFlight).toBeUndefined();
  });

  it('says a re-read is pending until it lands', async () => {
    let release: () => void = () => undefined;
    const state: Script = { resources: ['things'], status: 200, reads: 0, hold: new Promise<void>((r) => (release = r)) };
    const { reader, cache } = await setup(state);
    expect(cache.rereadPending('a')).toBeUndefined();
    cache.reread('a', reader);
    const pending = cache.rereadPending('a');
    expect(pending).toBeInstanceOf(Promise);
    release();
    await pending;
    expect(cache.rereadPending('a')).toBeUndefined();
    expect(cache.document('a')?.gvrs).toHaveLength(1);
  });

  it('lets a read of a server forgotten meanwhile land nowhere', async () => {
    let release: () => void = () => undefined;
    const state: Script = { resources: ['things'], status: 200, reads: 0, hold: new Promise<void>((r) => (release = r)) };
    const { reader, cache, changes } = await setup(state);
    const read = cache.refresh('a', reader);
    cache.forget('a');
    cache.add('a');
    release();
    await read;
    expect(cache.document('a')).toBeUndefined();
    expect(cache.of('a')).toEqual({});
    expect(changes).toEqual([]);
  });
});
