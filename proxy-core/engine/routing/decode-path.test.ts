import { describe, expect, it } from 'vitest';
import { decodePath, requestInfo } from './request-info.js';

describe('decodePath (Go URL.Path)', () => {
  it('decodes %XX in either case to its byte, leaves + and plain paths alone', () => {
    expect(decodePath('/apis/apps/v1/deployments')).toBe('/apis/apps/v1/deployments');
    expect(decodePath('/apis/resource.k8s.io/v1/device%63lasses')).toBe('/apis/resource.k8s.io/v1/deviceclasses');
    expect(decodePath('/api%2Fv1%2fpods')).toBe('/api/v1/pods');
    expect(decodePath('/a+b/%2e%2E')).toBe('/a+b/..');
    // Bytes, not UTF-8 text: as Node shows raw request bytes (latin1).
    expect(decodePath('/%C3%A9')).toBe('/\u00c3\u00a9');
  });

  it("fails on an invalid escape, as Go's server refuses the request", () => {
    for (const p of ['/%', '/%z1', '/%4', '/a%%', '/%G0']) expect(decodePath(p), p).toBeUndefined();
  });

  it('makes an encoded GVR the same GVR', () => {
    const info = requestInfo('GET', decodePath('/apis/resource.k8s.io/v1/%64eviceclasses') as string);
    expect([info.apiGroup, info.apiVersion, info.resource]).toEqual(['resource.k8s.io', 'v1', 'deviceclasses']);
  });
});
