// Table answers: the columns of the resources with a printer, the Name / Created At default for the
// rest, the AGE rounding, and the Table form negotiated over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRelease } from '../../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../cluster.js';
import { callServer } from '../../test/sim-client.js';
import { humanAge } from './age.js';
import { printerFor } from './table-printers.js';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json';

describe('AGE cells', () => {
  it('round as kubectl users read them', () => {
    const s = 1000;
    const cases: [number, string][] = [
      [-5 * s, '<invalid>'],
      [-500, '0s'],
      [0, '0s'],
      [119 * s, '119s'],
      [120 * s, '2m'],
      [185 * s, '3m5s'],
      [10 * 60 * s, '10m'],
      [179 * 60 * s, '179m'],
      [3 * 3600 * s + 5 * 60 * s, '3h5m'],
      [10 * 3600 * s, '10h'],
      [3 * 86400 * s + 4 * 3600 * s, '3d4h'],
      [12 * 86400 * s, '12d'],
      [(2 * 365 + 30) * 86400 * s, '2y30d'],
      [9 * 365 * 86400 * s, '9y'],
    ];
    for (const [ms, text] of cases) expect(humanAge(ms), String(ms)).toBe(text);
  });
});

describe('printers', () => {
  const now = Date.parse('2026-01-01T00:10:00Z');
  const meta = { name: 'x', uid: 'u', resourceVersion: '1', creationTimestamp: '2026-01-01T00:00:00Z' };

  it('a pod: ready containers, the waiting reason, restarts, and the wide columns', () => {
    const pod = {
      metadata: meta,
      spec: { containers: [{ name: 'a' }, { name: 'b' }], nodeName: 'node-1' },
      status: {
        phase: 'Pending',
        podIP: '10.0.0.5',
        containerStatuses: [
          { ready: true, restartCount: 2 },
          { ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    };
    const printer = printerFor('', 'pods');
    expect(printer?.columns.map((c) => c.name)).toEqual([
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
      'IP',
      'Node',
      'Nominated Node',
      'Readiness Gates',
    ]);
    expect(printer?.cells(pod, now)).toEqual(['x', '1/2', 'CrashLoopBackOff', 3, '10m', '10.0.0.5', 'node-1', '<none>', '<none>']);
  });

  it('the kubernetes Service: type, cluster IP, no external IP, port/protocol', () => {
    const service = { metadata: meta, spec: { type: 'ClusterIP', clusterIP: '10.96.0.1', ports: [{ port: 443, protocol: 'TCP' }] } };
    expect(printerFor('', 'services')?.cells(service, now)).toEqual(['x', 'ClusterIP', '10.96.0.1', '<none>', '443/TCP', '10m', '<none>']);
  });

  it('no printer for a resource kube-apiserver prints with its default columns', () => {
    expect(printerFor('storagemigration.k8s.io', 'storageversionmigrations')).toBeUndefined();
  });
});

describe('Table answers over HTTP', () => {
  let cluster: SimCluster;
  let url: string;
  beforeAll(async () => {
    cluster = await startSimCluster({ releases: [loadRelease('v1.37-dev')] });
    url = cluster.servers[0]?.info().url as string;
  });
  afterAll(() => cluster?.close());

  it('namespaces list as Name, Status, Age with the seeded namespaces Active', async () => {
    const res = await callServer(cluster, url, '/api/v1/namespaces', { headers: { accept: TABLE } });
    expect(res.headers['content-type']).toBe('application/json;as=Table;v=v1;g=meta.k8s.io');
    const table = res.json<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }>();
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Status', 'Age']);
    expect(table.rows.find((r) => r.cells[0] === 'default')?.cells.slice(0, 2)).toEqual(['default', 'Active']);
  });

  it('one configmap as Name, Data, Age', async () => {
    const created = await callServer(cluster, url, '/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name: 'c' }, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }),
    });
    expect(created.status).toBe(201);
    const res = await callServer(cluster, url, '/api/v1/namespaces/default/configmaps/c', { headers: { accept: TABLE } });
    const table = res.json<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }>();
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(table.rows[0]?.cells.slice(0, 2)).toEqual(['c', 3]);
  });

  it('a resource without a printer keeps the default Name and Created At', async () => {
    const res = await callServer(cluster, url, '/apis/storagemigration.k8s.io/v1/storageversionmigrations', { headers: { accept: TABLE } });
    const table = res.json<{ columnDefinitions: { name: string }[] }>();
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Created At']);
  });
});
