import { describe, expect, it } from 'vitest';
import { HOP_BY_HOP_HEADERS, hopByHopNames, isHopByHop, withoutHopByHop, withoutHopByHopRaw } from './headers.js';

describe('hop-by-hop headers', () => {
  it('are the RFC 9110 list plus what Connection names', () => {
    expect([...HOP_BY_HOP_HEADERS].sort()).toEqual([
      'connection',
      'keep-alive',
      'proxy-authenticate',
      'proxy-authorization',
      'proxy-connection',
      'te',
      'trailer',
      'transfer-encoding',
      'upgrade',
    ]);
    const set = hopByHopNames('keep-alive, X-Custom-Hop ,,x-other');
    expect(set.has('x-custom-hop')).toBe(true);
    expect(set.has('x-other')).toBe(true);
    expect(set.has('te')).toBe(true);
    expect(hopByHopNames(['close', 'X-A'])).toContain('x-a');
    expect(hopByHopNames(undefined)).toBe(HOP_BY_HOP_HEADERS);
    expect(isHopByHop('Transfer-Encoding')).toBe(true);
    expect(isHopByHop('Warning')).toBe(false);
  });

  it('are removed from a header object; end-to-end headers (Warning, Authorization, Impersonate-*) stay', () => {
    const headers = {
      connection: 'keep-alive, x-hop',
      'keep-alive': 'timeout=5',
      'x-hop': 'gone',
      'proxy-authorization': 'Basic x',
      'proxy-authenticate': 'Basic',
      te: 'trailers',
      trailer: 'x-checksum',
      'transfer-encoding': 'chunked',
      upgrade: 'h2c',
      warning: ['299 - "a"', '299 - "b"'],
      authorization: 'Bearer t',
      'impersonate-user': 'jane',
      'content-length': 12,
      'content-type': 'application/json',
    };
    expect(withoutHopByHop(headers)).toEqual({
      warning: ['299 - "a"', '299 - "b"'],
      authorization: 'Bearer t',
      'impersonate-user': 'jane',
      'content-length': 12,
      'content-type': 'application/json',
    });
  });

  it('are removed from a raw header array whatever their case, keeping order and repeats', () => {
    const raw = [
      'Host',
      'a',
      'Connection',
      'X-Hop',
      'X-HOP',
      '1',
      'Warning',
      '299 - "a"',
      'TE',
      'trailers',
      'Warning',
      '299 - "b"',
      'Upgrade',
      'websocket',
    ];
    expect(withoutHopByHopRaw(raw)).toEqual(['Host', 'a', 'Warning', '299 - "a"', 'Warning', '299 - "b"']);
    expect(withoutHopByHopRaw([])).toEqual([]);
  });
});
