// X-Peerscope-Route names each server as a person reads it, its identity beside it where they differ,
// and parseRouteHeader gives the identity back either way.
import { describe, expect, it } from 'vitest';
import { parseRouteHeader, routeHeader, routeHeaders, ROUTE_HEADER } from './route-header.js';

const names = { shownName: (id: string) => ({ 'apiserver-fa6m': 'cp-1', 'apiserver-q3ov': 'cp-2' })[id] ?? id };

describe('X-Peerscope-Route', () => {
  it('a server by its host name, the identity beside it', () => {
    const value = routeHeader('apiserver-fa6m', 'apiserver-q3ov', 'rerouted', names);
    expect(value).toBe('handling=cp-1; answering=cp-2; outcome=rerouted; handling-id=apiserver-fa6m; answering-id=apiserver-q3ov');
    expect(parseRouteHeader(value)).toEqual({ handling: 'apiserver-fa6m', answering: 'apiserver-q3ov', outcome: 'rerouted' });
  });

  it('a server whose host name is its identity (a --server NAME) as before', () => {
    const value = routeHeader('a', null, 'unavailable', names);
    expect(value).toBe('handling=a; answering=-; outcome=unavailable');
    expect(parseRouteHeader(value)).toEqual({ handling: 'a', answering: null, outcome: 'unavailable' });
    expect(routeHeaders('a', 'a', 'local')).toEqual({ [ROUTE_HEADER]: 'handling=a; answering=a; outcome=local' });
  });

  it('the cached header follows a changed host name', () => {
    let shown = 'cp-1';
    const changing = { shownName: () => shown };
    expect(routeHeaders('apiserver-fa6m', null, 'local', changing)[ROUTE_HEADER]).toMatch(/^handling=cp-1;/);
    shown = 'cp-1 (fa6m)';
    expect(routeHeaders('apiserver-fa6m', null, 'local', changing)[ROUTE_HEADER]).toMatch(/^handling=cp-1 \(fa6m\);/);
  });
});
