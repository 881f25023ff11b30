// Why a server is out of reach, on real sockets: a port nothing listens on, a server that accepts and
// never completes the TLS handshake, certificates of another CA, for another name, expired. Each is
// probed as the server set probes (AgentServerReader, HealthProbe) and must come out under its cause, with
// kubectl's words first in lastError; the summary says one line per cause.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTlsMaterial,
  freePort,
  startHttpsUpstream,
  startTcpUpstream,
  type TestServer,
  type TlsMaterial,
} from '../../test/upstream-fixtures.js';
import { issueServerCertificate } from '../tls/certs.js';
import { AgentServerReader } from './server-reader.js';
import { HealthProbe } from './servers/health-probe.js';
import { classifyUnreachable, reachabilityLines } from './reachability.js';
import type { ServerConfig } from './server-config.js';

const ready = (req: IncomingMessage, res: ServerResponse) =>
  req.url === '/version'
    ? res.writeHead(200, { 'content-type': 'application/json' }).end('{"gitVersion":"v1.37.0"}')
    : res.writeHead(200).end('ok');

describe('why a server is out of reach', () => {
  let tls: TlsMaterial;
  const servers: TestServer[] = [];
  const urls: Record<string, string> = {};
  beforeAll(async () => {
    tls = await createTlsMaterial();
    const start = async (name: string, s: Promise<TestServer>) => {
      const server = await s;
      servers.push(server);
      urls[name] = server.url.replace(/^http:/, 'https:');
    };
    await start('ok', startHttpsUpstream(tls, ready));
    await start('foreign', startHttpsUpstream(tls, ready, { cert: await issueServerCertificate(tls.otherCa) }));
    await start(
      'misnamed',
      startHttpsUpstream(tls, ready, { cert: await issueServerCertificate(tls.ca, { hosts: ['elsewhere.invalid'] }) }),
    );
    // notBefore is a day back: half a day of validity has passed already.
    await start('expired', startHttpsUpstream(tls, ready, { cert: await issueServerCertificate(tls.ca, { days: -0.5 }) }));
    // Accepts the connection and says nothing: the TLS handshake never completes (a hung process, a silent link).
    await start(
      'silent',
      startTcpUpstream(() => undefined),
    );
    urls.refused = `https://127.0.0.1:${await freePort()}`;
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  async function probed(name: string) {
    const config: ServerConfig = { name, url: urls[name] as string, ca: tls.ca.cert, source: 'lease' };
    const client = new AgentServerReader(config, 2_000, 500);
    const probe = new HealthProbe();
    probe.add(name);
    try {
      await probe.probe(name, client);
    } finally {
      await client.close();
    }
    return probe.of(name);
  }

  it.each([
    ['refused', 'refused', /^connection refused \(nothing listens there\): .*ECONNREFUSED/],
    ['silent', 'timeout', /^timeout \(nothing answers.*\): .*within 500 ms/],
    [
      'foreign',
      'tls-unknown-authority',
      /^certificate signed by unknown authority: .*(UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT)/,
    ],
    ['misnamed', 'tls-name-mismatch', /^certificate name mismatch .*: .*ERR_TLS_CERT_ALTNAME_INVALID/],
    ['expired', 'tls-expired', /^certificate expired or not yet valid: .*CERT_HAS_EXPIRED/],
  ])('%s: unreachable, cause %s, lastError in kubectl words', async (name, cause, words) => {
    const h = await probed(name);
    expect(h?.health).toBe('unreachable');
    expect(h?.unreachable?.cause).toBe(cause);
    expect(h?.lastError).toMatch(words);
  });

  it('a server that answers has no cause', async () => {
    const h = await probed('ok');
    expect(h?.health).toBe('ready');
    expect(h?.unreachable).toBeUndefined();
    expect(h?.lastError).toBeUndefined();
  });

  it('an error written down before (a forward passed on) keeps its cause and is not prefixed twice', () => {
    const once = classifyUnreachable('connect ECONNREFUSED 10.0.0.1:6443');
    expect(once.cause).toBe('refused');
    expect(classifyUnreachable(once.message).message).toBe(once.message);
    expect(classifyUnreachable('something else broke')).toEqual({ cause: 'other', words: 'error', message: 'something else broke' });
  });

  it('one line per cause, and who carries the traffic', () => {
    const s = (name: string, url: string, health: string, words?: string) => ({
      name,
      displayName: name,
      url,
      health,
      ...(words ? { unreachable: { cause: 'other' as const, words } } : {}),
    });
    expect(
      reachabilityLines([
        s('cp-1', 'https://10.0.0.1:6443', 'unreachable', 'connection refused'),
        s('cp-2', 'https://10.0.0.2:6443', 'unreachable', 'timeout'),
        s('cp-3', 'https://10.0.0.3:6443', 'unreachable', 'connection refused'),
        s('lb.example:443', 'https://lb.example:443', 'ready'),
      ]),
    ).toEqual([
      '2 apiservers out of reach, connection refused: 10.0.0.1:6443 (cp-1), 10.0.0.3:6443 (cp-3)',
      '1 apiserver out of reach, timeout: 10.0.0.2:6443 (cp-2)',
      'the port routes through lb.example:443 (https://lb.example:443)',
    ]);
    expect(reachabilityLines([s('cp-1', 'https://10.0.0.1:6443', 'unreachable', 'timeout')])).toEqual([
      '1 apiserver out of reach, timeout: 10.0.0.1:6443 (cp-1)',
      'no apiserver answers from here: the port answers 503 until one does',
    ]);
    expect(
      reachabilityLines([s('cp-1', 'https://10.0.0.1:6443', 'unreachable', 'timeout'), s('cp-2', 'https://10.0.0.2:6443', 'draining')]),
    ).toEqual(['1 apiserver out of reach, timeout: 10.0.0.1:6443 (cp-1)', 'no apiserver is ready: the port answers 503 until one is']);
    expect(reachabilityLines([s('cp-1', 'https://10.0.0.1:6443', 'ready')])).toEqual([]);
  });
});
