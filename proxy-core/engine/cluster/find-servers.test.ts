// Finding the apiservers from what a cluster answers (stub readers): leases with their addresses,
// endpoints and, where those are forbidden, EndpointSlices; expired leases whose address left the
// endpoints are gone; a 401 is the credentials' fault; a server that does not answer is skipped.
import { describe, expect, it } from 'vitest';
import { displayNames } from './display-names.js';
import { findApiservers } from './find-servers.js';
import type { ServerReader } from './server-config.js';

const NOW = Date.parse('2026-11-23T08:00:00Z');

/** `hostname` null: a lease without the kubernetes.io/hostname label. */
function lease(name: string, address: string | undefined, renewedSecondsAgo: number, duration = 3600, hostname: string | null = name) {
  return {
    metadata: {
      name,
      labels: {
        'apiserver.kubernetes.io/identity': 'kube-apiserver',
        ...(hostname !== null ? { 'kubernetes.io/hostname': hostname } : {}),
      },
      ...(address ? { annotations: { 'kubernetes.io/peer-advertise-address': address } } : {}),
    },
    spec: {
      holderIdentity: `${name}_1`,
      renewTime: new Date(NOW - renewedSecondsAgo * 1000).toISOString(),
      leaseDurationSeconds: duration,
    },
  };
}

function reader(url: string, answers: Record<string, { status: number; body: unknown } | Error>): ServerReader {
  return {
    server: { name: url, url },
    async get(path) {
      const key = Object.keys(answers).find((k) => path.startsWith(k));
      const a = key ? answers[key] : undefined;
      if (!a) return { status: 404, body: JSON.stringify({ kind: 'Status', message: 'the server could not find the requested resource' }) };
      if (a instanceof Error) throw a;
      return { status: a.status, body: JSON.stringify(a.body) };
    },
  };
}

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';
const ENDPOINTS = '/api/v1/namespaces/default/endpoints/kubernetes';
const SLICES = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
const endpoints = (...addresses: string[]) => ({
  subsets: addresses.map((a) => ({ addresses: [{ ip: a.split(':')[0] }], ports: [{ name: 'https', port: Number(a.split(':')[1]) }] })),
});

describe('findApiservers', () => {
  it('a lease names a server at its advertised address; an expired lease whose address left the endpoints is gone', async () => {
    const r = await findApiservers(
      reader('https://lb:6443', {
        [LEASES]: {
          status: 200,
          body: {
            items: [
              lease('apiserver-a', '10.0.0.1:6443', 5),
              lease('apiserver-b', '10.0.0.2:6443', 7200),
              lease('apiserver-c', '10.0.0.3:6443', 7200),
            ],
          },
        },
        [ENDPOINTS]: { status: 200, body: endpoints('10.0.0.1:6443', '10.0.0.3:6443', '10.0.0.4:6443') },
      }),
      'https://lb:6443',
      NOW,
    );
    expect(r.servers.map((s) => [s.name, s.url, s.source, s.lease?.expired])).toEqual([
      ['10.0.0.4:6443', 'https://10.0.0.4:6443', 'endpoints', undefined],
      ['apiserver-a', 'https://10.0.0.1:6443', 'lease', false],
      // Expired, but its address is still listed: it runs, and keeps its name.
      ['apiserver-c', 'https://10.0.0.3:6443', 'lease', true],
    ]);
    expect([...r.expired]).toEqual([
      [
        'apiserver-b',
        {
          url: 'https://10.0.0.2:6443',
          reason:
            'its identity lease expired at 2026-11-23T07:00:00.000Z and its address 10.0.0.2:6443 left the default/kubernetes endpoints',
          hostname: 'apiserver-b',
        },
      ],
    ]);
    expect(r.read).toEqual({ leases: true, endpoints: true });
    expect(r.warnings).toEqual([]);
  });

  it('Endpoints forbidden: the EndpointSlices give the addresses; leases forbidden: said, and the endpoints serve alone', async () => {
    const r = await findApiservers(
      reader('https://lb:6443', {
        [LEASES]: {
          status: 403,
          body: { kind: 'Status', message: 'leases.coordination.k8s.io is forbidden: User "dev" cannot list resource "leases"' },
        },
        [ENDPOINTS]: { status: 403, body: { kind: 'Status', message: 'forbidden' } },
        [SLICES]: {
          status: 200,
          body: {
            items: [
              {
                endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'], conditions: { ready: false } }],
                ports: [{ name: 'https', port: 6443 }],
              },
            ],
          },
        },
      }),
      'https://lb:6443',
      NOW,
    );
    expect(r.servers.map((s) => s.name)).toEqual(['10.0.0.1:6443']);
    expect(r.read).toEqual({ leases: false, endpoints: true });
    expect(r.warnings).toEqual([
      'cannot read the apiserver identity leases (HTTP 403: leases.coordination.k8s.io is forbidden: User "dev" cannot list resource "leases")',
    ]);
  });

  it("nothing readable: the kubeconfig's server alone; a 401 is reported as refused credentials instead", async () => {
    const forbidden = await findApiservers(
      reader('https://lb:6443', {
        [LEASES]: { status: 403, body: {} },
        [ENDPOINTS]: { status: 403, body: {} },
        [SLICES]: { status: 403, body: {} },
      }),
      'https://lb:6443',
      NOW,
    );
    expect(forbidden.servers.map((s) => [s.name, s.source])).toEqual([['lb:6443', 'kubeconfig']]);
    const refused = await findApiservers(
      reader('https://lb:6443', { [LEASES]: { status: 401, body: { message: 'Unauthorized' } }, [ENDPOINTS]: { status: 401, body: {} } }),
      'https://lb:6443',
      NOW,
    );
    expect(refused.unauthorized).toBe('https://lb:6443 answered 401 Unauthorized to a read of the apiserver identity leases');
    expect(refused.servers).toEqual([]);
  });

  it('a server that does not answer is skipped for the next one', async () => {
    const down = reader('https://10.0.0.1:6443', {
      [LEASES]: new Error('connect ECONNREFUSED 10.0.0.1:6443'),
      [ENDPOINTS]: new Error('connect ECONNREFUSED 10.0.0.1:6443'),
    });
    const up = reader('https://10.0.0.2:6443', {
      [LEASES]: { status: 200, body: { items: [lease('apiserver-a', '10.0.0.1:6443', 5), lease('apiserver-b', '10.0.0.2:6443', 5)] } },
      [ENDPOINTS]: { status: 200, body: endpoints('10.0.0.2:6443') },
    });
    const r = await findApiservers([down, up], 'https://10.0.0.1:6443', NOW);
    expect(r.servers.map((s) => s.name)).toEqual(['apiserver-a', 'apiserver-b']);
    expect(r.warnings).toEqual([]);
    // A server that answers one read and drops the other: the next server completes the pair.
    const half = reader('https://10.0.0.1:6443', {
      [LEASES]: { status: 200, body: { items: [lease('apiserver-a', '10.0.0.1:6443', 5)] } },
      [ENDPOINTS]: new Error('read ECONNRESET'),
    });
    const both = await findApiservers([half, up], 'https://10.0.0.1:6443', NOW);
    expect(both.read).toEqual({ leases: true, endpoints: true });
    expect(both.warnings).toEqual([]);
    expect(both.servers.map((s) => s.name)).toEqual(['10.0.0.2:6443', 'apiserver-a']);
  });

  it('an expired lease at an address a live lease now advertises is gone: the machine was replaced under another identity', async () => {
    const r = await findApiservers(
      reader('https://lb:6443', {
        [LEASES]: {
          status: 200,
          body: {
            items: [
              lease('apiserver-old', '10.0.0.1:6443', 120, 60),
              lease('apiserver-new', '10.0.0.1:6443', 5, 60),
              lease('apiserver-b', '10.0.0.2:6443', 5, 60),
            ],
          },
        },
        [ENDPOINTS]: { status: 200, body: endpoints('10.0.0.1:6443', '10.0.0.2:6443') },
      }),
      'https://lb:6443',
      NOW,
    );
    expect(r.servers.map((s) => s.name)).toEqual(['apiserver-b', 'apiserver-new']);
    expect(r.expired.get('apiserver-old')?.reason).toBe(
      'its identity lease expired at 2026-11-23T07:59:00.000Z and another apiserver identity now holds its address 10.0.0.1:6443',
    );
  });

  it('each lease gives its host name; two hosts sharing a name are shown apart by the start of their lease names', async () => {
    const r = await findApiservers(
      reader('https://lb:6443', {
        [LEASES]: {
          status: 200,
          body: {
            items: [
              lease('apiserver-fa6myrjs6maza5o5onsvobwkha', '10.0.0.1:6443', 5, 3600, 'cp-1'),
              lease('apiserver-q3ovcbhxkbbmbn5uhu4mrkaqsu', '10.0.0.2:6443', 5, 3600, 'cp-1'),
              lease('apiserver-x7kd2m4n5p6q7r8s9t0uvwxyza', '10.0.0.3:6443', 5, 3600, 'cp-3'),
              lease('apiserver-nolabelnolabelnolabelnola', '10.0.0.4:6443', 5, 3600, null),
            ],
          },
        },
        [ENDPOINTS]: { status: 200, body: endpoints('10.0.0.1:6443', '10.0.0.2:6443', '10.0.0.3:6443', '10.0.0.4:6443', '10.0.0.5:6443') },
      }),
      'https://lb:6443',
      NOW,
    );
    expect(r.servers.map((s) => [s.name, s.lease?.hostname])).toEqual([
      ['10.0.0.5:6443', undefined],
      ['apiserver-fa6myrjs6maza5o5onsvobwkha', 'cp-1'],
      ['apiserver-nolabelnolabelnolabelnola', undefined],
      ['apiserver-q3ovcbhxkbbmbn5uhu4mrkaqsu', 'cp-1'],
      ['apiserver-x7kd2m4n5p6q7r8s9t0uvwxyza', 'cp-3'],
    ]);
    const shown = displayNames(r.servers.map((s) => ({ name: s.name, ...(s.lease?.hostname ? { hostname: s.lease.hostname } : {}) })));
    expect([...shown.values()]).toEqual(['10.0.0.5:6443', 'cp-1 (fa6myr)', 'apiserver-nolabelnolabelnolabelnola', 'cp-1 (q3ovcb)', 'cp-3']);
  });
});
