// The server list: what a refresh adds, moves, marks gone and brings back, in the order it happened.
import { afterEach, describe, expect, it } from 'vitest';
import { PeerscopeError } from '../../../contract/errors.js';
import type { ServerConfig } from '../server-config.js';
import { Membership, sameEndpoint, type MembershipChange } from './membership.js';

const A: ServerConfig = { name: 'a', url: 'https://127.0.0.1:6443' };
const B: ServerConfig = { name: 'b', url: 'https://127.0.0.2:6443' };
const C: ServerConfig = { name: 'c', url: 'https://127.0.0.3:6443' };
const update = (servers: ServerConfig[], gone: [string, string][] = []) => ({ servers, gone: new Map(gone), warnings: [] });

const open: Membership[] = [];
afterEach(async () => {
  for (const m of open.splice(0)) await m.close();
});

function membership(servers: ServerConfig[], goneRetentionMs = 60_000) {
  const changes: [string, MembershipChange][] = [];
  const m = new Membership(servers, { timeoutMs: 1_000, goneRetentionMs, onChange: (name, change) => changes.push([name, change]) });
  open.push(m);
  return { m, changes };
}

describe('Membership', () => {
  it('refuses two servers of one name', () => {
    const err = (() => {
      try {
        membership([A, { ...B, name: 'a' }]);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(PeerscopeError);
    expect((err as PeerscopeError).code).toBe('PEERSCOPE_ERR_INPUT');
  });

  it('adds a new server, keeps an unlisted one, and marks the named one gone with its reason', () => {
    const { m, changes } = membership([A, B]);
    expect(changes).toEqual([]);
    const out = m.sync(update([A, C], [['b', 'its lease expired']]));
    expect(out).toEqual({ added: ['c'], gone: ['b'], back: [] });
    expect(changes).toEqual([
      ['c', 'added'],
      ['b', 'gone'],
    ]);
    expect(m.names()).toEqual(['a', 'b', 'c']);
    expect(m.inService().map((s) => s.config.name)).toEqual(['a', 'c']);
    expect(m.member('b')?.gone).toMatchObject({ reason: 'its lease expired' });
    expect(m.member('b')?.gone?.removeAt).toBe((m.member('b')?.gone?.at ?? 0) + 60_000);
    // Gone once: naming it again changes nothing.
    expect(m.sync(update([], [['b', 'again']])).gone).toEqual([]);
    expect(m.member('b')?.gone?.reason).toBe('its lease expired');
  });

  it('brings a gone server back when it is found again, and reconnects one that moved', () => {
    const { m, changes } = membership([A, B]);
    m.sync(update([], [['b', 'left']]));
    const readerA = m.member('a')?.reader;
    const out = m.sync(update([{ ...A, url: 'https://127.0.0.9:6443' }, B]));
    expect(out).toEqual({ added: [], gone: [], back: ['b'] });
    expect(changes).toEqual([
      ['b', 'gone'],
      ['a', 'changed'],
      ['b', 'back'],
    ]);
    expect(m.member('a')?.config.url).toBe('https://127.0.0.9:6443');
    expect(m.member('a')?.reader).not.toBe(readerA);
    expect(m.isGone('b')).toBe(false);
    // The same endpoint again: no change, the same reader.
    const readerNow = m.member('a')?.reader;
    m.sync(update([{ ...A, url: 'https://127.0.0.9:6443', source: 'lease' }]));
    expect(m.member('a')?.reader).toBe(readerNow);
    expect(m.member('a')?.config.source).toBe('lease');
    expect(changes).toHaveLength(3);
  });

  it('removes a gone server after the retention period', async () => {
    const { m, changes } = membership([A, B], 50);
    m.sync(update([], [['b', 'left']]));
    await new Promise((r) => setTimeout(r, 120));
    expect(m.names()).toEqual(['a']);
    expect(m.member('b')).toBeUndefined();
    expect(changes).toEqual([
      ['b', 'gone'],
      ['b', 'removed'],
    ]);
  });

  it('changes nothing once closed', async () => {
    const { m, changes } = membership([A]);
    await m.close();
    expect(m.sync(update([B], [['a', 'left']]))).toEqual({ added: [], gone: [], back: [] });
    expect(changes).toEqual([]);
  });
});

describe('sameEndpoint', () => {
  it('tells apart the address, the CA, the TLS name, the proxy and the client certificate', () => {
    expect(sameEndpoint(A, { ...A, source: 'lease' })).toBe(true);
    for (const other of [
      { url: 'https://127.0.0.1:6444' },
      { ca: 'x' },
      { servername: 'kubernetes' },
      { proxy: 'http://127.0.0.1:3128' },
      { clientCert: { cert: 'c', key: 'k' } },
    ]) {
      expect(sameEndpoint(A, { ...A, ...other })).toBe(false);
    }
  });
});
