// A bare --audit-log FILE matched to the server that wrote it, from real files: by the sourceIPs of
// the server's own requests (user system:apiserver), by the file name, or refused naming the candidates.
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

/** A log whose server's own requests come from `own` (none when undefined), among a client's. */
function log(file: string, own: string | undefined): string {
  const path = join(dir, file);
  const text = auditLog([
    { verb: 'list', path: PODS_PATH, ref: PODS, code: 200, sourceIP: '172.18.0.1' },
    ...(own
      ? [
          {
            verb: 'get',
            path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/apiserver-x',
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

  it('refuses a file its own requests and its name disagree on, naming both', async () => {
    const file = log('apiserver-b.log', '10.96.0.11');
    await expect(match(file)).rejects.toThrow(
      `--audit-log ${file}: its server's own requests come from 10.96.0.11 (apiserver-a), but its file name names apiserver-b (servers: apiserver-a, apiserver-b, apiserver-c); give it as SERVER=${file}`,
    );
  });

  it('refuses a file whose own requests come from no known server, or that names nothing to match by', async () => {
    const elsewhere = log('x.log', '127.0.0.1');
    await expect(match(elsewhere)).rejects.toThrow(
      `--audit-log ${elsewhere}: its server's own requests come from 127.0.0.1, no server's address, and its file name names no server (servers: apiserver-a, apiserver-b, apiserver-c); give it as SERVER=${elsewhere}`,
    );
    const bare = log('y.log', undefined);
    await expect(match(bare)).rejects.toThrow(
      `--audit-log ${bare}: its events hold no request of a server's own (user system:apiserver) to match by sourceIPs, and its file name names no server`,
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
