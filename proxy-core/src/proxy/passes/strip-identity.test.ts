import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isIdentityHeader, stripIdentityHeaders } from './strip-identity.js';

describe('strip identity headers (spec §3, P7)', () => {
  it.each([
    ['x-remote-user', true],
    ['X-Remote-User', true],
    ['x-remote-uid', true],
    ['x-remote-group', true],
    ['X-Remote-Extra-Scopes', true],
    ['x-remote-extra-authentication.kubernetes.io%2fpod-name', true],
    ['x-remote-users', false],
    ['x-remote', false],
    ['impersonate-user', false],
    ['impersonate-extra-scopes', false],
    ['authorization', false],
    ['x-kubernetes-peer-proxied', false],
  ])('%s → %s', (name, identity) => {
    expect(isIdentityHeader(name)).toBe(identity);
  });

  it('removes the client-sent front-proxy identity and keeps Impersonate-* and Authorization', () => {
    const headers: IncomingHttpHeaders = {
      'x-remote-user': 'system:admin',
      'x-remote-uid': '0',
      'x-remote-group': 'system:masters',
      'x-remote-extra-scopes': 'all',
      'impersonate-user': 'jane',
      'impersonate-group': 'dev',
      authorization: 'Bearer client',
      accept: 'application/json',
    };
    expect(stripIdentityHeaders(headers)).toBe(4);
    expect(headers).toEqual({
      'impersonate-user': 'jane',
      'impersonate-group': 'dev',
      authorization: 'Bearer client',
      accept: 'application/json',
    });
    expect(stripIdentityHeaders(headers)).toBe(0);
  });
});
