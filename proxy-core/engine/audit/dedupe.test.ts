// One request counts once: only its final event, and a final event seen again among the recent ones
// is a duplicate; the oldest is forgotten once the capacity is reached.
import { describe, expect, it } from 'vitest';
import { RequestDedupe, requestHash } from './dedupe.js';
import type { AuditRecord } from './event.js';

const record = (server: string, auditID: string, stage: AuditRecord['stage'] = 'ResponseComplete'): AuditRecord => ({
  server,
  auditID,
  stage,
  verb: 'get',
  path: '/api/v1/pods',
  user: 'u',
  userAgent: 'a',
  target: null,
  code: 200,
  receivedAt: 0,
  stageAt: 0,
  sourceIP: '',
});

describe('RequestDedupe', () => {
  it('counts a final event once per server, ignores earlier stages, and forgets the oldest past its capacity', () => {
    const d = new RequestDedupe(3);
    expect(d.verdict(record('a', 'id-1', 'RequestReceived'))).toBe('not-final');
    expect(d.verdict(record('a', 'id-1'))).toBe('count');
    expect(d.verdict(record('a', 'id-1'))).toBe('duplicate');
    // The same auditID at another server is another request.
    expect(d.verdict(record('b', 'id-1'))).toBe('count');
    expect(d.verdict(record('a', 'id-2', 'Panic'))).toBe('count');
    expect(d.verdict(record('a', 'id-3'))).toBe('count');
    // id-1 at a was the oldest of the last three: forgotten, so counted again.
    expect(d.verdict(record('a', 'id-1'))).toBe('count');
    expect(d.verdict(record('a', 'id-3'))).toBe('duplicate');
  });

  it('gives distinct keys distinct 53-bit hashes (a million UUID-like auditIDs, two servers)', () => {
    const seen = new Set<number>();
    let unsafe = 0;
    for (let i = 0; i < 500_000; i++) {
      const id = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
      for (const server of ['apiserver-a', 'apiserver-b']) {
        const h = requestHash(server, id);
        if (!Number.isSafeInteger(h) || h < 0) unsafe++;
        seen.add(h);
      }
    }
    expect(unsafe).toBe(0);
    expect(seen.size).toBe(1_000_000);
    // The separator keeps ("ab", "c") and ("a", "bc") apart.
    expect(requestHash('ab', 'c')).not.toBe(requestHash('a', 'bc'));
  });
});
