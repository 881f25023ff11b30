import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { compilePattern, parsePatternList, PatternError } from '../patterns.js';
import { checkHost, checkOrigin, checkRequestFilter, isIdentityHeader, stripIdentityHeaders } from './admit.js';

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

const HOST = '127.0.0.1:8001';
const accepted = ['https://dashboard\\.example', 'http://localhost:3\\d{3}'].map((p) => compilePattern('accept-origins', p, true));

describe('origin check (issue 20)', () => {
  it.each([
    // [headers, accept-origins, allowed]
    [{}, [], true],
    [{ 'sec-fetch-site': 'none' }, [], true],
    [{ 'sec-fetch-site': 'same-origin' }, [], true],
    [{ origin: 'http://127.0.0.1:8001', 'sec-fetch-site': 'same-origin' }, [], true],
    [{ origin: 'HTTP://127.0.0.1:8001' }, [], true],
    [{ origin: 'http://evil.example' }, [], false],
    [{ origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' }, [], false],
    [{ origin: 'http://127.0.0.1:8002' }, [], false],
    [{ origin: 'http://localhost:8001' }, [], false],
    [{ origin: 'https://127.0.0.1:8001' }, [], false],
    [{ origin: 'null' }, [], false],
    [{ origin: 'null' }, [compilePattern('accept-origins', '.*', true)], false],
    [{ origin: ' NULL ' }, [], false],
    [{ origin: '' }, [], false],
    [{ 'sec-fetch-site': 'cross-site' }, [], false],
    [{ 'sec-fetch-site': 'same-site' }, [], false],
    [{ 'sec-fetch-site': 'Cross-Site' }, [], false],
    [{ 'sec-fetch-site': 'same-origin, cross-site' }, [], false],
    [{ origin: 'http://127.0.0.1:8001', 'sec-fetch-site': 'cross-site' }, [], false],
    [{ origin: 'https://dashboard.example', 'sec-fetch-site': 'cross-site' }, accepted, true],
    [{ origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site' }, accepted, true],
    // Matched whole: a prefix or suffix of an accepted origin is another origin.
    [{ origin: 'https://dashboard.example.evil.example' }, accepted, false],
    [{ origin: 'https://evil.example/https://dashboard.example' }, accepted, false],
    [{ origin: 'http://localhost:30000' }, accepted, false],
    [{ origin: 'https://dashboard.example, http://evil.example' }, accepted, false],
    [{ 'sec-fetch-site': 'cross-site' }, accepted, false],
  ] as Array<[Record<string, string>, RegExp[], boolean]>)('%j with %s accepted → %s', (headers, acceptOrigins, allowed) => {
    expect(checkOrigin(headers, HOST, acceptOrigins) === undefined).toBe(allowed);
  });

  it('refuses with a 403 Forbidden Status that names the origin and the flag', () => {
    expect(checkOrigin({ origin: 'http://evil.example' }, HOST, [])).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      code: 403,
      reason: 'Forbidden',
      message:
        'Origin "http://evil.example" is not allowed: the local port refuses requests from web pages; --accept-origins allows chosen origins',
    });
    expect(checkOrigin({ 'sec-fetch-site': 'same-site' }, HOST, [])?.message).toMatch(
      /^a request marked Sec-Fetch-Site: "same-site" is not allowed/,
    );
  });
});

const compile = (flag: string, text: string) => parsePatternList(flag, text).map((p) => compilePattern(flag, p, false));
// kubectl proxy's own default --reject-paths.
const kubectlDefault = { rejectPaths: compile('reject-paths', '^/api/.*/pods/.*/exec,^/api/.*/pods/.*/attach'), rejectMethods: [] };

describe('request filter (--reject-paths, --reject-methods)', () => {
  it('refuses nothing by default', () => {
    expect(
      checkRequestFilter('POST', '/api/v1/namespaces/d/pods/p/exec', '/api/v1/namespaces/d/pods/p/exec', {
        rejectPaths: [],
        rejectMethods: [],
      }),
    ).toBeUndefined();
  });

  it.each([
    ['GET', '/api/v1/namespaces/d/pods/p/exec', true],
    ['POST', '/api/v1/namespaces/d/pods/p/attach', true],
    ['GET', '/api/v1/namespaces/d/pods/p/log', false],
    ['GET', '/api/v1/namespaces/d/pods/p/portforward', false],
    ['GET', '/apis/apps/v1/deployments', false],
    // Encoded: matched as decoded too.
    ['GET', '/api/v1/namespaces/d/pods/p/ex%65c', true],
  ])("kubectl's default paths: %s %s → refused %s", (method, path, refused) => {
    const decoded = decodeURIComponent(path);
    expect(checkRequestFilter(method, path, decoded, kubectlDefault) !== undefined).toBe(refused);
  });

  it('matches methods anywhere unless anchored, as kubectl does', () => {
    const filter = { rejectPaths: [], rejectMethods: compile('reject-methods', 'POST,^PUT$') };
    expect(checkRequestFilter('POST', '/api', '/api', filter)?.message).toBe(
      'the method POST is refused by the port (--reject-methods POST)',
    );
    expect(checkRequestFilter('PUT', '/api', '/api', filter)).toBeDefined();
    expect(checkRequestFilter('XPOSTX', '/api', '/api', filter)).toBeDefined();
    expect(checkRequestFilter('XPUT', '/api', '/api', filter)).toBeUndefined();
    expect(checkRequestFilter('GET', '/api', '/api', filter)).toBeUndefined();
  });

  it('refuses with a 403 Forbidden Status naming the path and the pattern', () => {
    expect(checkRequestFilter('GET', '/api/v1/namespaces/d/pods/p/exec', '/api/v1/namespaces/d/pods/p/exec', kubectlDefault)).toMatchObject(
      {
        kind: 'Status',
        code: 403,
        reason: 'Forbidden',
        message: 'the path "/api/v1/namespaces/d/pods/p/exec" is refused by the port (--reject-paths ^/api/.*/pods/.*/exec)',
      },
    );
  });

  it("reads a list as kubectl does, but an empty item is no pattern (kubectl's would match everything)", () => {
    expect(parsePatternList('reject-paths', '')).toEqual([]);
    expect(parsePatternList('reject-paths', 'a, ,b,')).toEqual(['a', 'b']);
  });

  it('names the flag and the pattern of a bad one', () => {
    expect(() => parsePatternList('reject-paths', '^/ok,^/api/(')).toThrow(PatternError);
    expect(() => parsePatternList('reject-paths', '^/ok,^/api/(')).toThrow(/^reject-paths: "\^\/api\/\(" is not a regular expression/);
  });

  it('anchors a whole-match pattern around every alternative', () => {
    const re = compilePattern('accept-origins', 'http://a|http://b', true);
    expect(['http://a', 'http://b'].map((o) => re.test(o))).toEqual([true, true]);
    expect(['http://ab', 'xhttp://b'].map((o) => re.test(o))).toEqual([false, false]);
  });
});

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
