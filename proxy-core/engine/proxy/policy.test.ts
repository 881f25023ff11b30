import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { classifyUpstreamError, isConnectFailure } from '../upstream/errors.js';
import { HandlingServerPicker, formatPolicy, mayRetryElsewhere, parsePolicy } from './policy.js';

describe('handling-server policy (spec P1)', () => {
  it('round-robin cycles through the ready servers', () => {
    const picker = new HandlingServerPicker({ kind: 'round-robin' });
    const picks = Array.from({ length: 6 }, () => picker.pick(['a', 'b', 'c']).server);
    expect(picks).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('random draws uniformly from the injected source', () => {
    const values = [0, 0.5, 0.99];
    const picker = new HandlingServerPicker({ kind: 'random' }, () => values.shift() ?? 0);
    expect([0, 1, 2].map(() => picker.pick(['a', 'b']).server)).toEqual(['a', 'b', 'b']);
  });

  it('pin always picks the named server, and fails when it is not ready (C47, C48)', () => {
    const picker = new HandlingServerPicker(parsePolicy('pin:b'));
    expect(picker.pick(['a', 'b']).server).toBe('b');
    expect(picker.pick(['a'])).toEqual({ server: null, reason: 'the pinned apiserver "b" is not ready' });
  });

  it('no ready server is an error', () => {
    expect(new HandlingServerPicker({ kind: 'round-robin' }).pick([])).toEqual({ server: null, reason: 'no apiserver is ready' });
  });

  it('parses and formats the CLI forms', () => {
    expect(formatPolicy(parsePolicy('pin:sim-1'))).toBe('pin:sim-1');
    expect(parsePolicy('random')).toEqual({ kind: 'random' });
    expect(() => parsePolicy('pin:')).toThrow(/not one of/);
  });
});

const request = (headers: Record<string, string> = {}) => ({ headers }) as unknown as IncomingMessage;

describe("the load balancer's one retry", () => {
  it('only for a first forward to the handling server itself, without a body', () => {
    expect(mayRetryElsewhere(true, 'a', 'a', false, request())).toBe(true);
    expect(mayRetryElsewhere(false, 'a', 'a', false, request())).toBe(false);
    expect(mayRetryElsewhere(true, 'b', 'a', true, request())).toBe(false);
    expect(mayRetryElsewhere(true, 'a', 'a', false, request({ 'content-length': '2' }))).toBe(false);
    expect(mayRetryElsewhere(true, 'a', 'a', false, request({ 'transfer-encoding': 'chunked' }))).toBe(false);
  });

  it('only when no connection was made', () => {
    const refused = classifyUpstreamError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }));
    const reset = classifyUpstreamError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    expect(isConnectFailure(refused)).toBe(true);
    expect(isConnectFailure(reset)).toBe(false);
  });
});
