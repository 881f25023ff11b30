// --audit-webhook-token NAME=FILE takes a server's host name as the screens print it or its lease name.
import { describe, expect, it } from 'vitest';
import { resolveWebhookTokens } from './senders.js';

describe('resolveWebhookTokens', () => {
  const servers = [
    { name: 'apiserver-sim-1', hostname: 'sim-1' },
    { name: 'apiserver-sim-2', hostname: 'sim-2' },
  ];

  it('names each token by the identity its NAME names; a name of no server now is kept and listed', () => {
    const specs = [
      { server: 'sim-1', file: 'a.token' },
      { server: 'apiserver-sim-2', file: 'b.token' },
      { server: 'sim-3', file: 'c.token' },
    ];
    expect(resolveWebhookTokens(specs, servers)).toEqual({
      specs: [
        { server: 'apiserver-sim-1', file: 'a.token' },
        { server: 'apiserver-sim-2', file: 'b.token' },
        { server: 'sim-3', file: 'c.token' },
      ],
      unknown: ['sim-3'],
    });
  });

  it('with no servers known, takes every name as given', () => {
    expect(resolveWebhookTokens([{ server: 'x', file: 'x.token' }], [])).toEqual({
      specs: [{ server: 'x', file: 'x.token' }],
      unknown: [],
    });
  });
});
