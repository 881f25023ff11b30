import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { classifyUpstreamError, isConnectFailure } from './errors.js';
import { mayRetryElsewhere } from './retry.js';

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
