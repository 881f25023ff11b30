// Synthetic traffic for the recording bench: a large cluster's mix — five servers, a hundred clients
// (user agents and users) each making its own six kinds of request (a GVR and a verb: a controller
// watches and lists what it manages) over two hundred GVRs, a few clients making most requests,
// mostly answered, some rerouted, some false 404s — as the port's routing events and the audit
// logs' cluster events, from a seeded generator so every run records the same.
import type { ClusterEvent } from '../../proxy-core/contract/cluster.js';
import type { RoutingEvent } from '../../proxy-core/contract/events.js';
import { seededRandom } from '../../proxy-core/engine/util/seeded-random.js';

const SERVERS = ['cp-1', 'cp-2', 'cp-3', 'cp-4', 'cp-5'];
const VERBS = ['get', 'list', 'watch', 'update', 'patch', 'create', 'delete'];
const GROUPS = ['', 'apps', 'batch', 'rbac.authorization.k8s.io', 'coordination.k8s.io', 'resource.k8s.io', 'example.com'];

export interface SyntheticEvents {
  routing(at: number): RoutingEvent;
  cluster(at: number): ClusterEvent;
}

export function syntheticEvents(seed = 42): SyntheticEvents {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  // A few clients make most requests (controllers), as on a real cluster.
  const skewed = (n: number): number => Math.floor(n * random() ** 3);
  const clients = Array.from({ length: 100 }, (_, i) => `controller-${i}/v1.${i % 9}.0 (linux/amd64) kubernetes/0a1b2c${i % 10}`);
  const users = Array.from({ length: 100 }, (_, i) => `system:serviceaccount:ns-${i % 20}:controller-${i}`);
  const gvrs = Array.from({ length: 200 }, (_, i) => ({
    group: GROUPS[i % GROUPS.length] as string,
    version: i % 5 ? 'v1' : 'v1beta1',
    resource: `things${i}`,
  }));
  const namespaces = Array.from({ length: 50 }, (_, i) => `team-${i}`);
  const kinds = clients.map(() => Array.from({ length: 6 }, () => ({ gvr: gvrs[skewed(gvrs.length)]!, verb: pick(VERBS) })));
  let seq = 0;
  const request = (client: number) => {
    const { gvr, verb } = pick(kinds[client]!);
    return {
      ...gvr,
      verb,
      method: verb === 'create' ? 'POST' : verb === 'update' ? 'PUT' : 'GET',
      path: `/apis/${gvr.group}/${gvr.version}/${gvr.resource}`,
      subresource: '',
      namespace: random() < 0.8 ? pick(namespaces) : '',
    };
  };
  return {
    routing(at) {
      const client = skewed(clients.length);
      const r = request(client);
      const roll = random();
      const outcome = roll < 0.9 ? 'local' : roll < 0.97 ? 'rerouted' : roll < 0.99 ? 'notfound' : 'unavailable';
      const handling = pick(SERVERS);
      return {
        seq: ++seq,
        at,
        userAgent: clients[client]!,
        ...r,
        handling,
        answeredBy: outcome === 'local' ? handling : outcome === 'rerouted' ? pick(SERVERS) : null,
        outcome,
        status: outcome === 'notfound' ? 404 : outcome === 'unavailable' ? 503 : 200,
        latencyMs: 1 + random() * 40,
        bytesIn: 0,
        bytesOut: 1_000,
      };
    },
    cluster(at) {
      const i = skewed(users.length);
      const r = request(i);
      const false404 = random() < 0.02;
      return {
        seq: ++seq,
        at,
        server: pick(SERVERS),
        userAgent: clients[i]!,
        user: users[i]!,
        ...r,
        outcome: false404 ? 'false-404' : 'local',
        code: false404 ? 404 : 200,
        latencyMs: random() * 30,
        via: 'audit-log',
      };
    },
  };
}
