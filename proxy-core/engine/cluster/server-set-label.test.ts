// How messages name a server: ServerSet.label gives the display name (the lease's host name) with the
// identity beside it when they differ, unique across the servers, and follows the list as it changes.
import { describe, expect, it } from 'vitest';
import { ServerSet } from './server-set.js';

describe('ServerSet.label', () => {
  it('names a lease-found server by its host name and lease name, a --server NAME by its name alone', async () => {
    const servers = new ServerSet([
      { name: 'apiserver-fa6myrjs6maza5o5onsvobwkha', url: 'https://127.0.0.1:1', hostname: 'cp-1', source: 'lease' },
      { name: 'apiserver-q3zd5mqkqtdlb2l7n5ae2bjcfa', url: 'https://127.0.0.1:2', hostname: 'cp-1', source: 'lease' },
      { name: 'kube-a', url: 'https://127.0.0.1:3' },
    ]);
    try {
      expect(servers.label('apiserver-fa6myrjs6maza5o5onsvobwkha')).toBe('"cp-1 (fa6myr)" (apiserver-fa6myrjs6maza5o5onsvobwkha)');
      expect(servers.label('apiserver-q3zd5mqkqtdlb2l7n5ae2bjcfa')).toBe('"cp-1 (q3zd5m)" (apiserver-q3zd5mqkqtdlb2l7n5ae2bjcfa)');
      expect(servers.label('kube-a')).toBe('"kube-a"');
      // A name the set does not know (a pool removed meanwhile) is still named.
      expect(servers.label('elsewhere')).toBe('"elsewhere"');
    } finally {
      await servers.close();
    }
  });

  it('follows the list: a server that joins with the same host name tells the two apart from then on', async () => {
    const first = { name: 'apiserver-aaaaaaaa1', url: 'https://127.0.0.1:1', hostname: 'cp-1', source: 'lease' as const };
    const servers = new ServerSet([first]);
    try {
      expect(servers.label(first.name)).toBe('"cp-1" (apiserver-aaaaaaaa1)');
      servers.sync({
        servers: [first, { name: 'apiserver-bbbbbbbb2', url: 'https://127.0.0.1:2', hostname: 'cp-1', source: 'lease' }],
        gone: new Map(),
        warnings: [],
      });
      expect(servers.label(first.name)).toBe('"cp-1 (aaaaaa)" (apiserver-aaaaaaaa1)');
      expect(servers.label('apiserver-bbbbbbbb2')).toBe('"cp-1 (bbbbbb)" (apiserver-bbbbbbbb2)');
    } finally {
      await servers.close();
    }
  });
});
