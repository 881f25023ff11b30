import { describe, expect, it } from 'vitest';
import { compilePattern } from '../proxy/patterns.js';
import { checkOrigin } from './origin-check.js';

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
