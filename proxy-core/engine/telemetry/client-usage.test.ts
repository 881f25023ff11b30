import { describe, expect, it } from 'vitest';
import type { RoutingEvent } from '../../contract/events.js';
import { identityOf, shortHash } from './client-identity.js';
import { ClientUsage, MAX_AGENT_TEXT, MAX_USAGE_ROWS, OTHER_CLIENTS, OTHER_CLIENTS_ROWS, warningTexts } from './client-usage.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function event(over: Partial<RoutingEvent> = {}): RoutingEvent {
  return {
    seq: 1,
    at: T0,
    userAgent: 'kubectl/v1.36.0 (linux/amd64) kubernetes/abc',
    method: 'GET',
    verb: 'list',
    path: '/apis/x.io/v1/things',
    group: 'x.io',
    version: 'v1',
    resource: 'things',
    subresource: '',
    namespace: '',
    handling: 's1',
    answeredBy: 's1',
    outcome: 'local',
    status: 200,
    latencyMs: 1,
    bytesIn: 0,
    bytesOut: 10,
    ...over,
  };
}

describe('identityOf', () => {
  it('hashes a bearer token to 8 hex digits and never returns the token', () => {
    const token = 'sekrit-token-abcdef';
    const id = identityOf(`Bearer ${token}`, 'admin');
    expect(id).toBe(`token:${shortHash(token)}`);
    expect(id).toMatch(/^token:[0-9a-f]{8}$/);
    expect(id).not.toContain(token);
    expect(identityOf(`Bearer ${token}`, undefined)).toBe(id);
    expect(identityOf('Basic dXNlcjpwYXNz', undefined)).toMatch(/^basic:[0-9a-f]{8}$/);
  });
  it('is the port’s own user when the client brings no credential, else anonymous', () => {
    expect(identityOf(undefined, 'kubernetes-admin')).toBe('kubernetes-admin');
    expect(identityOf(undefined, undefined)).toBe('anonymous');
  });
});

describe('ClientUsage', () => {
  it('counts per client × GVR × verb, with per-minute buckets, 404s and warnings', () => {
    const u = new ClientUsage({ ownIdentity: 'admin' });
    for (let i = 0; i < 12; i++) u.record(event({ at: T0 + i * 1_000 }), undefined, undefined);
    u.record(event({ at: T0 + 61_000, status: 404 }), undefined, ['299 - "x.io/v1 Thing is deprecated in v1.37+"']);
    u.record(event({ verb: 'watch' }), 'Bearer t1', undefined);
    u.record(event({ resource: '', group: '', version: '' }), undefined, undefined); // not a resource request
    u.record(event({ outcome: 'rejected' }), undefined, undefined);
    const rows = u.data(T0 + 90_000).rows;
    expect(rows).toHaveLength(2);
    const list = rows.find((r) => r.verb === 'list')!;
    expect(list).toMatchObject({
      identity: 'admin',
      count: 13,
      notFound: 1,
      warned: 1,
      warnings: ['x.io/v1 Thing is deprecated in v1.37+'],
      firstAt: T0,
      lastAt: T0 + 61_000,
    });
    expect(list.minutes).toEqual([
      { at: T0, count: 12 },
      { at: T0 + 60_000, count: 1 },
    ]);
    expect(rows.find((r) => r.verb === 'watch')!.identity).toBe(`token:${shortHash('t1')}`);
  });

  it('asks a function for the port’s own identity each time (a re-read token file)', () => {
    let token = 'first';
    const u = new ClientUsage({ ownIdentity: () => identityOf(`Bearer ${token}`, undefined) });
    u.record(event(), undefined, undefined);
    token = 'second';
    u.record(event(), undefined, undefined);
    expect(u.data(T0).rows.map((r) => r.identity)).toEqual([`token:${shortHash('first')}`, `token:${shortHash('second')}`]);
  });

  it('drops minutes older than the window', () => {
    const u = new ClientUsage();
    u.record(event({ at: T0 }), undefined, undefined);
    u.record(event({ at: T0 + 30 * 60_000 }), undefined, undefined);
    expect(u.data(T0 + 30 * 60_000).rows[0]!.minutes).toHaveLength(2);
    const later = u.data(T0 + 75 * 60_000).rows[0]!;
    expect(later.minutes).toEqual([{ at: T0 + 30 * 60_000, count: 1 }]);
    expect(later.count).toBe(2);
  });

  it('stays bounded: past the row limit new clients go to one row per GVR and verb, then untracked', () => {
    const u = new ClientUsage();
    for (let i = 0; i < MAX_USAGE_ROWS; i++) u.record(event({ userAgent: `made-up/${i}` }), undefined, undefined);
    expect(u.size).toBe(MAX_USAGE_ROWS);
    u.record(event({ userAgent: 'late/1' }), undefined, undefined);
    u.record(event({ userAgent: 'late/2' }), undefined, undefined);
    expect(u.size).toBe(MAX_USAGE_ROWS + 1);
    for (let i = 0; i < OTHER_CLIENTS_ROWS + 10; i++) u.record(event({ userAgent: 'late/3', resource: `r${i}` }), undefined, undefined);
    expect(u.size).toBe(MAX_USAGE_ROWS + OTHER_CLIENTS_ROWS);
    const data = u.data(T0);
    expect(data.untracked).toBe(11);
    expect(data.rows.find((r) => r.userAgent === OTHER_CLIENTS && r.resource === 'things')!.count).toBe(2);
  });
});

describe('ClientUsage with made-up text', () => {
  it('keeps 256 characters of a user agent and counts a name no Kubernetes API can have as untracked', () => {
    const u = new ClientUsage();
    const long = `made-up/${'x'.repeat(5_000)}`;
    u.record(event({ userAgent: long }), undefined, undefined);
    u.record(event({ userAgent: `${long}y` }), undefined, undefined);
    u.record(event({ resource: 'r'.repeat(254) }), undefined, undefined);
    u.record(event({ group: `${'g'.repeat(251)}.io` }), undefined, undefined);
    const data = u.data(T0);
    expect(data.rows).toHaveLength(1);
    expect(data.rows[0]!.userAgent).toBe(long.slice(0, MAX_AGENT_TEXT));
    expect(data.rows[0]!.count).toBe(2);
    expect(data.untracked).toBe(2);
  });
});

describe('warningTexts', () => {
  it('reads every 299 warning of each header value, unescaped', () => {
    expect(warningTexts(['299 - "a, b", 299 - "say \\"hi\\""', '199 - "misc"', '299 - "c"'])).toEqual(['a, b', 'say "hi"', 'c']);
  });
});
