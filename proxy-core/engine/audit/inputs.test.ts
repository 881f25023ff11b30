// A bare --audit-log FILE matched to the server that wrote it, from real files: by the identity lease
// its server renews, by the sourceIPs of the server's own requests (user system:apiserver), by the file
// name, or refused naming the candidates.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { auditLog, PODS, PODS_PATH } from '../../test/audit-events.js';
import { LOOPBACK_USER, matchAuditInputs, parseAuditInputSpec } from './inputs.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-inputs-'));
const servers = [
  { name: 'apiserver-a', url: 'https://10.96.0.11:6443' },
  { name: 'apiserver-b', url: 'https://10.96.0.12:6443' },
  { name: 'apiserver-c', url: 'https://[fd00::13]:6443' },
];

const LEASES = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespace: 'kube-system' };
const leasePath = (name: string) => `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${name}`;

/** A log whose server's own requests come from `own` (none when undefined) and renew `lease`, among a client's. */
function log(file: string, own: string | undefined, lease?: string): string {
  const path = join(dir, file);
  const text = auditLog([
    { verb: 'list', path: PODS_PATH, ref: PODS, code: 200, sourceIP: '172.18.0.1' },
    ...(own
      ? [
          lease
            ? { verb: 'update', path: leasePath(lease), ref: { ...LEASES, name: lease }, code: 200, user: LOOPBACK_USER, sourceIP: own }
            : { verb: 'get', path: '/api/v1/namespaces/kube-system', code: 200, user: LOOPBACK_USER, sourceIP: own },
          // Its lease collector deleting another server's expired lease: not its own.
          {
            verb: 'delete',
            path: leasePath('apiserver-c'),
            ref: { ...LEASES, name: 'apiserver-c' },
            code: 200,
            user: LOOPBACK_USER,
            sourceIP: own,
          },
        ]
      : []),
  ]);
  writeFileSync(path, file.endsWith('.gz') ? gzipSync(text) : text);
  return path;
}

const match = (...files: string[]) => matchAuditInputs(files.map(parseAuditInputSpec), servers);

describe('matchAuditInputs', () => {
  it('matches a bare FILE to the server its own requests come from, .gz and IPv6 included', async () => {
    const a = log('one.log', '10.96.0.11');
    const b = log('two.log.gz', '10.96.0.12');
    const c = log('three.log', 'fd00::13');
    expect(await match(a, b, c)).toEqual([
      { server: 'apiserver-a', file: a },
      { server: 'apiserver-b', file: b },
      { server: 'apiserver-c', file: c },
    ]);
  });

  it('falls back to the file name when the log holds no request of the server itself, and takes SERVER=FILE as given', async () => {
    const named = log('apiserver-b-audit.log', undefined);
    const given = log('anything.log', '10.96.0.11');
    expect(await match(named, `apiserver-c=${given}`)).toEqual([
      { server: 'apiserver-b', file: named },
      { server: 'apiserver-c', file: given },
    ]);
  });

  it('matches by the identity lease its server renews before the address (servers on one machine share one)', async () => {
    // Both files' own requests come from the machine's first address; the leases tell them apart.
    const a = log('p.log', '10.96.0.11', 'apiserver-a');
    const b = log('q.log', '10.96.0.11', 'apiserver-b');
    expect(await match(b, a)).toEqual([
      { server: 'apiserver-b', file: b },
      { server: 'apiserver-a', file: a },
    ]);
  });

  it('refuses a file its own requests and its name disagree on, naming both', async () => {
    const file = log('apiserver-b.log', '10.96.0.11');
    await expect(match(file)).rejects.toThrow(
      `--audit-log ${file}: its server's own requests come from 10.96.0.11, the address of apiserver-a; its file name names apiserver-b (servers: apiserver-a, apiserver-b, apiserver-c); give it as SERVER=${file}`,
    );
    const leased = log('apiserver-c.log', '10.96.0.11', 'apiserver-a');
    await expect(match(leased)).rejects.toThrow('its server renews the identity lease of apiserver-a; its file name names apiserver-c');
  });

  it('refuses two files that land on the same server', async () => {
    const one = log('r.log', '10.96.0.12');
    const two = log('s.log', '10.96.0.12');
    await expect(match(one, two)).rejects.toThrow(
      `--audit-log ${two}: it and ${one} both match server apiserver-b (its server's own requests come from 10.96.0.12, the address of apiserver-b); give each as SERVER=FILE`,
    );
  });

  it('refuses a file whose own requests come from no known server, or that names nothing to match by', async () => {
    const elsewhere = log('x.log', '127.0.0.1');
    await expect(match(elsewhere)).rejects.toThrow(
      `--audit-log ${elsewhere}: its server's own requests come from 127.0.0.1, no server's address; its file name names no server (servers: apiserver-a, apiserver-b, apiserver-c); give it as SERVER=${elsewhere}`,
    );
    const bare = log('y.log', undefined);
    await expect(match(bare)).rejects.toThrow(
      `--audit-log ${bare}: its events hold no request of a server's own (user system:apiserver) to match by; its file name names no server`,
    );
  });

  it('refuses a file whose own requests come from an address two servers share', async () => {
    const file = log('z.log', '10.96.0.11');
    const shared = [
      { name: 'apiserver-a', url: 'https://10.96.0.11:6443' },
      { name: 'apiserver-a2', url: 'https://10.96.0.11:7443' },
    ];
    await expect(matchAuditInputs([parseAuditInputSpec(file)], shared)).rejects.toThrow(
      'the address of several servers: apiserver-a, apiserver-a2',
    );
  });
});
