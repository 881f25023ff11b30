import { describe, expect, it } from 'vitest';
import { checkHost } from './host-check.js';

const listener = { port: 8001 };

describe('host check (spec P4)', () => {
  it.each([
    ['localhost', [], true],
    ['localhost:8001', [], true],
    ['LOCALHOST:8001', [], true],
    ['127.0.0.1', [], true],
    ['127.0.0.1:8001', [], true],
    ['[::1]', [], true],
    ['[::1]:8001', [], true],
    ['localhost:8002', [], false],
    ['127.0.0.1:80', [], false],
    ['[::1]:9999', [], false],
    ['::1', [], false],
    ['127.0.0.2', [], false],
    ['localhost.', [], false],
    ['attacker.example', [], false],
    ['attacker.example:8001', [], false],
    ['localhost.attacker.example', [], false],
    ['127.0.0.1.nip.io:8001', [], false],
    ['peerscope.internal', ['peerscope.internal'], true],
    ['Peerscope.Internal:8001', ['peerscope.internal'], true],
    ['peerscope.internal:9000', ['peerscope.internal'], false],
    ['peerscope.internal:9000', ['peerscope.internal:9000'], true],
    ['other.internal', ['peerscope.internal'], false],
  ] as Array<[string, string[], boolean]>)('%s with accept-hosts %j → %s', (host, acceptHosts, ok) => {
    expect(checkHost(host, listener, acceptHosts).ok).toBe(ok);
  });

  it('refuses with a 403 Forbidden Status naming the Host as sent', () => {
    const result = checkHost('Attacker.example:8001', listener, []);
    expect(result).toEqual({
      ok: false,
      status: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 403,
        reason: 'Forbidden',
        message: 'Host header "Attacker.example:8001" is not allowed',
      },
    });
  });

  it('refuses a request without Host', () => {
    for (const missing of [undefined, '']) {
      const result = checkHost(missing, listener, ['']);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.status).toMatchObject({ code: 403, reason: 'Forbidden', message: 'Host header "" is not allowed' });
    }
  });
});
