// The receiver's problems on standard error: told once per sender and reason, then every thousandth
// with its count, so a sender that keeps failing cannot flood serve's log.
import { describe, expect, it } from 'vitest';
import { PROBLEM_RETOLD_EVERY, webhookProblemLog } from './audit-webhook-flags.js';

describe('webhookProblemLog', () => {
  it('tells the first of each sender and reason, then every thousandth with the count', () => {
    const lines: string[] = [];
    const log = webhookProblemLog((l) => lines.push(l));
    for (let i = 1; i <= 2 * PROBLEM_RETOLD_EVERY; i++) log('10.0.0.9', 'sender not allowed', `try ${i}`);
    log('apiserver-a', 'not an EventList', 'kind Event');
    log('10.0.0.9', 'not JSON', 'Unexpected end');
    expect(lines).toEqual([
      'peerscope: audit webhook: 10.0.0.9: sender not allowed: try 1\n',
      'peerscope: audit webhook: 10.0.0.9: sender not allowed: 1000 so far (the latest: try 1000; all counted in /.peerscope/metrics)\n',
      'peerscope: audit webhook: 10.0.0.9: sender not allowed: 2000 so far (the latest: try 2000; all counted in /.peerscope/metrics)\n',
      'peerscope: audit webhook: apiserver-a: not an EventList: kind Event\n',
      'peerscope: audit webhook: 10.0.0.9: not JSON: Unexpected end\n',
    ]);
  });
});
