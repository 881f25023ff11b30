// `--policy pin:NAME` by any name a person knows a server by: its host name (`sim-2`, `cp-1`), its
// lease name (`apiserver-sim-2`) or its identity (a --server NAME), through the one resolver of server
// names (engine/cluster/server-names.ts). The picker keys servers by identity: the pin is rewritten
// to it before the port starts. A simulated server's identity is its host name, its lease name that
// with `apiserver-` before it, which the resolver (keyed on real leases) does not know.
import type { NamedServer } from '../../engine/cluster/display-names.js';
import { ServerNames } from '../../engine/cluster/server-names.js';
import type { HandlingPolicy } from '../../engine/proxy/policy.js';
import { InputError } from '../../engine/util/input-error.js';

const LEASE_PREFIX = 'apiserver-';

/** The policy with a pin's name resolved to the server's identity; an InputError naming the servers when it names none. */
export function resolvePin(policy: HandlingPolicy, servers: readonly NamedServer[]): HandlingPolicy {
  if (policy.kind !== 'pin') return policy;
  const names = new ServerNames(servers);
  const typed = policy.server;
  const found = names.candidates(typed);
  if (found.length === 0 && typed.startsWith(LEASE_PREFIX)) {
    const simulated = servers.find((s) => s.name === typed.slice(LEASE_PREFIX.length) && !s.hostname);
    if (simulated) return { kind: 'pin', server: simulated.name };
  }
  if (found.length === 0) throw new InputError(`--policy pin:${typed}`, `no server is named "${typed}"; pin one of ${names.known()}`);
  return { kind: 'pin', server: names.resolve(typed, `--policy pin:${typed}`) };
}
