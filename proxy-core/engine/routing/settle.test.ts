import { describe, expect, it } from 'vitest';
import type { GVR } from '../discovery/types.js';
import { requestInfo } from './request-info.js';
import { buildRouteTable, type RouteTable } from './route-table.js';
import { settleDecision, type CurrentRoutes, type ServerWaits, type SettleInput } from './settle.js';

const gvr = (key: string): GVR => {
  const [group = '', version = '', resource = ''] = key.split('/');
  return { group, version, resource };
};
const tableOf = (servers: Record<string, string[]>): RouteTable =>
  buildRouteTable(Object.entries(servers).map(([name, keys]) => ({ name, gvrs: keys.map(gvr), excludedGroupVersions: [] })));

const BEFORE = tableOf({ A: ['/v1/pods'], B: ['/v1/pods'] });
const DEVICES = 'resource.k8s.io/v1/deviceclasses';
const AFTER = tableOf({ A: ['/v1/pods'], B: ['/v1/pods', 'resource.k8s.io/v1/deviceclasses'] });

function input(path: string, routes: CurrentRoutes, waits: ServerWaits): SettleInput {
  return {
    info: requestInfo('GET', path, ''),
    handling: 'A',
    routes,
    servers: { ...waits, health: () => 'ready' },
    peerProxiedHeader: undefined,
    accept: undefined,
    discoveryMode: 'peer-aggregated',
    random: () => 0,
    since: 0,
  };
}

/** The waits of a server list, counting what settling asked of it. */
function servers(pending: Record<string, Promise<void>> = {}, onRecheck: () => void = () => {}) {
  const asked = { rereads: [] as string[], rechecks: 0 };
  const waits: ServerWaits = {
    rereadPending(name) {
      asked.rereads.push(name);
      return pending[name];
    },
    recheckOutOfService() {
      asked.rechecks++;
      onRecheck();
      return Promise.resolve();
    },
  };
  return { waits, asked };
}

describe('settleDecision', () => {
  it('answers the common request at once: no promise, no recheck', () => {
    const routes: CurrentRoutes = { table: BEFORE, generation: 1 };
    const { waits, asked } = servers();
    const settled = settleDecision(input('/api/v1/pods', routes, waits));
    expect(settled).not.toBeInstanceOf(Promise);
    expect(settled).toEqual({ outcome: 'local', target: 'A', reason: 'serves' });
    expect(asked).toEqual({ rereads: ['A'], rechecks: 0 });
  });

  it('rechecks before a 404 and decides again on the table the recheck brought', async () => {
    const routes = { table: BEFORE, generation: 1 };
    const { waits, asked } = servers({}, () => Object.assign(routes, { table: AFTER, generation: 2 }));
    const settled = settleDecision(input('/apis/resource.k8s.io/v1/deviceclasses', routes, waits));
    expect(settled).toBeInstanceOf(Promise);
    expect(await settled).toMatchObject({ outcome: 'rerouted', target: 'B' });
    expect(asked.rechecks).toBe(1);
  });

  it('keeps the 404 when the recheck changed nothing', async () => {
    const routes = { table: BEFORE, generation: 1 };
    const { waits, asked } = servers();
    expect(await settleDecision(input('/apis/resource.k8s.io/v1/deviceclasses', routes, waits))).toEqual({
      outcome: 'notfound',
      target: 'A',
    });
    expect(asked.rechecks).toBe(1);
  });

  it("waits for the handling server's re-read, then decides on the new table", async () => {
    const routes = { table: BEFORE, generation: 1 };
    let reread!: () => void;
    const pending = new Promise<void>((resolve) => (reread = resolve));
    const { waits, asked } = servers({ A: pending });
    const settled = settleDecision(input('/apis/resource.k8s.io/v1/deviceclasses', routes, waits));
    Object.assign(routes, { table: AFTER, generation: 2 });
    reread();
    expect(await settled).toMatchObject({ outcome: 'rerouted', target: 'B' });
    expect(asked.rechecks).toBe(0);
  });

  it('sends a reroute meant for a peer being re-read to another candidate at once, without waiting', () => {
    const routes = { table: tableOf({ A: ['/v1/pods'], B: [DEVICES], C: [DEVICES] }), generation: 1 };
    const { waits } = servers({ B: new Promise<void>(() => {}) });
    // random() = 0 picks B, the first candidate; its document may be a release old.
    const settled = settleDecision(input('/apis/resource.k8s.io/v1/deviceclasses', routes, waits));
    expect(settled).not.toBeInstanceOf(Promise);
    expect(settled).toMatchObject({ outcome: 'rerouted', target: 'C', candidates: ['B', 'C'] });
  });

  it('waits for the peer when every candidate is being re-read, then decides on the new table', async () => {
    const routes = { table: tableOf({ A: ['/v1/pods'], B: [DEVICES], C: [DEVICES] }), generation: 1 };
    let reread!: () => void;
    const { waits } = servers({ B: new Promise<void>((resolve) => (reread = resolve)), C: new Promise<void>(() => {}) });
    const settled = settleDecision(input('/apis/resource.k8s.io/v1/deviceclasses', routes, waits));
    expect(settled).toBeInstanceOf(Promise);
    // B came back without the resource; C still serves it.
    Object.assign(routes, { table: tableOf({ A: ['/v1/pods'], B: ['/v1/pods'], C: [DEVICES] }), generation: 2 });
    reread();
    expect(await settled).toMatchObject({ outcome: 'rerouted', target: 'C', candidates: ['C'] });
  });
});
