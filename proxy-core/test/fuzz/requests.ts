// What the port fuzz sends: one request spec drawn from the method, target, header and body
// arbitraries (request-line-, header- and body-arbitraries.ts), and a connection of pipelined
// requests. render.ts turns a spec into bytes on the wire and says what the port must do with it.
import fc from 'fast-check';
import { sometimes } from './arbitrary-helpers.js';
import { bodyArb } from './body-arbitraries.js';
import { ACCEPTS, browserArb, connectionHeaderArb, extraArb, hopArb, hostArb, identityArb } from './header-arbitraries.js';
import { methodArb, targetArb } from './request-line-arbitraries.js';
import type { InvalidHeader, RequestSpec } from './request-spec.js';
import { REPLY_MODES, type ReplyMode } from './upstream.js';

export function requestArb(port: number): fc.Arbitrary<RequestSpec> {
  return fc.record({
    method: methodArb,
    target: targetArb,
    version: fc.oneof(
      { weight: 60, arbitrary: fc.constant('HTTP/1.1') },
      { weight: 1, arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.2', 'HTTP/1', 'http/1.1', 'HTTPS/1.1', 'HTTP/1.1 x') },
    ),
    host: hostArb(port),
    browser: sometimes(browserArb(port), 8),
    reply: fc.oneof(
      { weight: 60, arbitrary: fc.constant<ReplyMode>('json') },
      {
        weight: 30,
        arbitrary: fc.constantFrom<ReplyMode>(
          ...REPLY_MODES.filter((m) => m !== 'json' && m !== 'big' && m !== 'reset' && m !== 'garbage' && m !== 'cut-mid-body'),
        ),
      },
      { weight: 3, arbitrary: fc.constantFrom<ReplyMode>('reset', 'garbage', 'cut-mid-body') },
      { weight: 1, arbitrary: fc.constant<ReplyMode>('big') },
    ),
    identity: identityArb,
    connection: connectionHeaderArb,
    hop: hopArb,
    upgrade: sometimes(fc.constantFrom('websocket', 'SPDY/3.1', 'h2c'), 50),
    peerProxied: sometimes(fc.constantFrom('true', 'false', 'TRUE', 'true '), 12),
    authorization: fc.boolean(),
    accept: sometimes(fc.constantFrom(...ACCEPTS), 3),
    expect: sometimes(fc.constantFrom('100-continue', '100-Continue', 'foo', '200-ok'), 40),
    extra: extraArb,
    padTo: fc.oneof({ weight: 60, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(20_000, 50_000, 80_000, 200_000) }),
    invalidHeader: sometimes(
      fc.constantFrom<InvalidHeader>(
        'name-space',
        'name-nul',
        'name-colon',
        'value-nul',
        'value-cr',
        'value-lf',
        'value-del',
        'obs-fold',
        'name-8bit',
      ),
      60,
    ),
    body: bodyArb,
  });
}

/** One connection: a few requests sent back to back (pipelined); the last may end the connection. */
export function connectionArb(port: number): fc.Arbitrary<RequestSpec[]> {
  return fc.array(requestArb(port), { minLength: 1, maxLength: 16 });
}
