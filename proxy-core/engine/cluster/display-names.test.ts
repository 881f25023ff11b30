// The names a person reads: host names from the leases, unique even where two servers share one.
import { describe, expect, it } from 'vitest';
import { displayNames } from './display-names.js';

describe('displayNames', () => {
  it('shows a lease-found server by its host name, and a server without one by its identity', () => {
    const shown = displayNames([
      { name: 'apiserver-fa6myrjs6maza5o5onsvobwkha', hostname: 'cp-1' },
      { name: 'apiserver-q3ovcbhxkbbmbn5uhu4mrkaqsu', hostname: 'cp-2' },
      { name: '10.0.0.4:6443' },
      { name: 'extra' },
    ]);
    expect([...shown]).toEqual([
      ['apiserver-fa6myrjs6maza5o5onsvobwkha', 'cp-1'],
      ['apiserver-q3ovcbhxkbbmbn5uhu4mrkaqsu', 'cp-2'],
      ['10.0.0.4:6443', '10.0.0.4:6443'],
      ['extra', 'extra'],
    ]);
  });

  it('two hosts sharing a name each get the start of their lease name beside it, long enough to tell them apart', () => {
    const shown = displayNames([
      { name: 'apiserver-fa6myrjs6maza5o5onsvobwkha', hostname: 'cp-1' },
      { name: 'apiserver-fa6myrzzzzzzzzzzzzzzzzzzzz', hostname: 'cp-1' },
      { name: 'apiserver-q3ovcbhxkbbmbn5uhu4mrkaqsu', hostname: 'cp-1' },
    ]);
    expect([...shown.values()]).toEqual(['cp-1 (fa6myrj)', 'cp-1 (fa6myrz)', 'cp-1 (q3ovcb)']);
  });

  it('the same server keeps the same name whichever other servers are present', () => {
    const a = { name: 'apiserver-fa6myrjs6maza5o5onsvobwkha', hostname: 'cp-1' };
    const b = { name: 'apiserver-q3ovcbhxkbbmbn5uhu4mrkaqsu', hostname: 'cp-1' };
    const c = { name: 'apiserver-mmmmmmhxkbbmbn5uhu4mrkaqsu', hostname: 'cp-1' };
    expect(displayNames([a, b]).get(b.name)).toBe('cp-1 (q3ovcb)');
    expect(displayNames([c, b, a]).get(b.name)).toBe('cp-1 (q3ovcb)');
  });

  it('a --server NAME that is also a host name keeps the name the operator typed; the lease-found one is told apart', () => {
    const shown = displayNames([{ name: 'apiserver-fa6myrjs6maza5o5onsvobwkha', hostname: 'cp-1' }, { name: 'cp-1' }]);
    expect(shown.get('cp-1')).toBe('cp-1');
    expect(shown.get('apiserver-fa6myrjs6maza5o5onsvobwkha')).toBe('cp-1 (fa6myr)');
  });

  it('a host name that reads like a told-apart name is settled by the identity', () => {
    const shown = displayNames([
      { name: 'apiserver-fa6myrjs6maza5o5onsvobwkha', hostname: 'cp-1' },
      { name: 'cp-1' },
      { name: 'apiserver-q3ovcbhxkbbmbn5uhu4mrkaqsu', hostname: 'cp-1 (fa6myr)' },
    ]);
    expect(new Set(shown.values()).size).toBe(3);
    expect(shown.get('apiserver-q3ovcbhxkbbmbn5uhu4mrkaqsu')).toBe('cp-1 (fa6myr) (apiserver-q3ovcbhxkbbmbn5uhu4mrkaqsu)');
  });
});
