import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { discoveryETag, ifNoneMatchHits } from './etag.js';

describe('discovery ETag (spec D2)', () => {
  it('is the double-quoted uppercase hex SHA-512 of the JSON bytes', () => {
    const json = '{"kind":"APIGroupDiscoveryList","items":[{"metadata":{"name":"é"}}]}';
    const etag = discoveryETag(json);
    expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(etag).toBe(`"${createHash('sha512').update(Buffer.from(json, 'utf8')).digest('hex').toUpperCase()}"`);
    expect(discoveryETag('')).toBe(
      '"CF83E1357EEFB8BDF1542850D66D8007D620E4050B5715DC83F4A921D36CE9CE47D0D13C5D85F2B0FF8318D2877EEC2F63B931BD47417A81A538327AF927DA3E"',
    );
    expect(discoveryETag('{"a":1}')).not.toBe(discoveryETag('{"a":2}'));
  });

  it('If-None-Match hits only when it equals the ETag', () => {
    const etag = discoveryETag('{}');
    expect(ifNoneMatchHits(etag, etag)).toBe(true);
    expect(ifNoneMatchHits(` ${etag} `, etag)).toBe(true);
    expect(ifNoneMatchHits(undefined, etag)).toBe(false);
    expect(ifNoneMatchHits('', etag)).toBe(false);
    expect(ifNoneMatchHits('*', etag)).toBe(false);
    expect(ifNoneMatchHits(`W/${etag}`, etag)).toBe(false);
    expect(ifNoneMatchHits(etag.toLowerCase(), etag)).toBe(false);
    expect(ifNoneMatchHits(`"other", ${etag}`, etag)).toBe(false);
  });
});
