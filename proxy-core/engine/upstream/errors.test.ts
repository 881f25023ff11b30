// The error table: each failure shape Node, OpenSSL and undici produce maps to exactly one code, and
// the Status names the server (spec P5). Real-socket versions of these failures are in forward-failures.test.ts;
// this table covers shapes a test cannot provoke on loopback (DNS, unreachable networks).
import { describe, expect, it } from 'vitest';
import { serverLabel } from '../../contract/servers.js';
import { classifyUpstreamError, isConnectFailure, statusForUpstreamError, type UpstreamErrorCode, type UpstreamPhase } from './errors.js';

function nodeError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('classifyUpstreamError', () => {
  const table: Array<[string, unknown, UpstreamPhase, UpstreamErrorCode, RegExp]> = [
    [
      'refused',
      nodeError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.2:6443'),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_CONNECT_REFUSED',
      /connection refused \(connect ECONNREFUSED 10\.0\.0\.2:6443\)/,
    ],
    [
      'connect timeout',
      nodeError('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error'),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_CONNECT_TIMEOUT',
      /connect timeout/,
    ],
    [
      'unreachable',
      nodeError('EHOSTUNREACH', 'connect EHOSTUNREACH 10.0.0.9:6443'),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_UNREACHABLE',
      /host unreachable/,
    ],
    [
      'dns',
      nodeError('ENOTFOUND', 'getaddrinfo ENOTFOUND api.example'),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_DNS',
      /cannot resolve the host \(getaddrinfo ENOTFOUND api\.example\)/,
    ],
    [
      'dns, temporary',
      nodeError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN api.example'),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_DNS',
      /EAI_AGAIN/,
    ],
    [
      'unknown CA',
      nodeError('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_TLS',
      /TLS handshake failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate/,
    ],
    [
      'expired',
      nodeError('CERT_HAS_EXPIRED', 'certificate has expired'),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_TLS',
      /CERT_HAS_EXPIRED/,
    ],
    [
      'self-signed',
      nodeError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_TLS',
      /DEPTH_ZERO_SELF_SIGNED_CERT/,
    ],
    [
      'wrong name',
      nodeError('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_TLS',
      /altnames/,
    ],
    [
      'client cert refused',
      nodeError('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'tlsv13 alert certificate required'),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_TLS',
      /CERTIFICATE_REQUIRED/,
    ],
    [
      'headers timeout',
      nodeError('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error'),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_HEADERS_TIMEOUT',
      /no response headers in time/,
    ],
    [
      'reset before response',
      nodeError('ECONNRESET', 'read ECONNRESET'),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_RESET',
      /closed before a response/,
    ],
    [
      'other side closed',
      nodeError('UND_ERR_SOCKET', 'other side closed'),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_RESET',
      /other side closed/,
    ],
    [
      'closed mid-body',
      nodeError('UND_ERR_SOCKET', 'other side closed'),
      'after-headers',
      'PEERSCOPE_ERR_UPSTREAM_BODY_INTERRUPTED',
      /ended mid-body \(other side closed\)/,
    ],
    [
      'reset mid-body',
      nodeError('ECONNRESET', 'read ECONNRESET'),
      'after-headers',
      'PEERSCOPE_ERR_UPSTREAM_BODY_INTERRUPTED',
      /ECONNRESET/,
    ],
    [
      'garbage',
      Object.assign(new Error('Response does not match the HTTP/1.1 protocol'), { name: 'HTTPParserError' }),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_BAD_RESPONSE',
      /malformed response \(HPE_PARSE: Response does not match/,
    ],
    [
      'garbage with a code',
      nodeError('HPE_INVALID_CONSTANT', 'Expected HTTP/'),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_BAD_RESPONSE',
      /HPE_INVALID_CONSTANT/,
    ],
    [
      'aborted by undici',
      nodeError('UND_ERR_ABORTED', 'Request aborted'),
      'before-response',
      'PEERSCOPE_ERR_CLIENT_ABORTED',
      /the client went away/,
    ],
    [
      'aborted by a signal',
      new DOMException('This operation was aborted', 'AbortError'),
      'after-headers',
      'PEERSCOPE_ERR_CLIENT_ABORTED',
      /the client went away/,
    ],
    [
      'wrapped in a cause',
      Object.assign(new TypeError('fetch failed'), { cause: nodeError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1') }),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_CONNECT_REFUSED',
      /127\.0\.0\.1:1/,
    ],
    [
      'unknown code',
      nodeError('EWHATEVER', 'something odd'),
      'before-response',
      'PEERSCOPE_ERR_UPSTREAM_FAILED',
      /^EWHATEVER: something odd$/,
    ],
    ['not an error', 'a string', 'before-response', 'PEERSCOPE_ERR_UPSTREAM_FAILED', /^a string$/],
    ['unknown, mid-body', nodeError('EWHATEVER', 'something odd'), 'after-headers', 'PEERSCOPE_ERR_UPSTREAM_BODY_INTERRUPTED', /EWHATEVER/],
  ];

  it.each(table)('%s', (_name, err, phase, code, message) => {
    const error = classifyUpstreamError(err, phase);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it('says which failures never reached the server', () => {
    expect(isConnectFailure(classifyUpstreamError(nodeError('ECONNREFUSED', 'x')))).toBe(true);
    expect(isConnectFailure(classifyUpstreamError(nodeError('CERT_HAS_EXPIRED', 'x')))).toBe(true);
    expect(isConnectFailure(classifyUpstreamError(nodeError('UND_ERR_HEADERS_TIMEOUT', 'x')))).toBe(false);
    expect(isConnectFailure(classifyUpstreamError(nodeError('ECONNRESET', 'x')))).toBe(false);
  });
});

describe('statusForUpstreamError', () => {
  it('is a 503 ServiceUnavailable Status naming the server by its host name and identity, and the cause (spec P5)', () => {
    const status = statusForUpstreamError(serverLabel('apiserver-b', 'cp-2'), {
      code: 'PEERSCOPE_ERR_UPSTREAM_CONNECT_REFUSED',
      message: 'connection refused (connect ECONNREFUSED 10.0.0.2:6443)',
    });
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      code: 503,
      reason: 'ServiceUnavailable',
      message:
        'Error while proxying request to destination apiserver: apiserver "cp-2" (apiserver-b): connection refused (connect ECONNREFUSED 10.0.0.2:6443)',
    });
  });
});
