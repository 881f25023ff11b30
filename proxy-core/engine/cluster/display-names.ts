// The names a person reads for the servers: the host name an operator knows a machine by (the identity
// lease's kubernetes.io/hostname label), not the lease name (apiserver-fa6myrjs6maza5o5onsvobwkha) that
// identifies it. The identity stays the key of routing, route tables, headers, snapshots and metrics;
// this is only what screens and text show beside it.

/** A server as far as naming goes: its identity and, when its lease says, its host name. */
export interface NamedServer {
  readonly name: string;
  readonly hostname?: string;
}

const LEASE_PREFIX = 'apiserver-';
const SHORT_ID_LENGTH = 6;

/**
 * Identity → display name, unique across `servers`, in their order. A server is shown by its host name, or its
 * identity when it has none (a --server NAME, a simulated server, an address from the endpoints).
 * Where two servers would show the same name, the one whose identity is that name keeps it (what the
 * operator typed), and the others get a short piece of their identity beside it: "cp-1 (fa6myr)".
 * A piece of the identity rather than a counter ("cp-1 (2)"): it names the same server in every screen
 * and in snapshots taken hours apart, whichever other servers have joined or left meanwhile.
 */
export function displayNames(servers: readonly NamedServer[]): Map<string, string> {
  const byBase = new Map<string, NamedServer[]>();
  for (const s of servers) {
    const base = s.hostname || s.name;
    byBase.set(base, [...(byBase.get(base) ?? []), s]);
  }
  const shown = new Map<string, string>();
  for (const [base, group] of byBase) {
    const [only, ...more] = group;
    if (only && more.length === 0) {
      shown.set(only.name, base);
      continue;
    }
    const others = group.filter((s) => s.name !== base);
    for (const s of group) shown.set(s.name, s.name === base ? base : `${base} (${shortId(s.name, others)})`);
  }
  // A host name may itself read like "cp-1 (fa6myr)": the identity then settles it.
  const taken = new Map<string, number>();
  for (const name of shown.values()) taken.set(name, (taken.get(name) ?? 0) + 1);
  for (const [id, name] of shown) if ((taken.get(name) ?? 0) > 1 && name !== id) shown.set(id, `${name} (${id})`);
  // In the order given, as the servers are listed.
  return new Map(servers.map((s) => [s.name, shown.get(s.name) ?? s.name]));
}

/** The shortest start of the identity (past "apiserver-"), six characters or more, that no other of `group` shares. */
function shortId(name: string, group: readonly NamedServer[]): string {
  const id = (n: string) => (n.startsWith(LEASE_PREFIX) ? n.slice(LEASE_PREFIX.length) : n);
  const own = id(name);
  const rest = group.filter((s) => s.name !== name).map((s) => id(s.name));
  for (let length = SHORT_ID_LENGTH; length < own.length; length++) {
    const piece = own.slice(0, length);
    if (!rest.some((r) => r.startsWith(piece))) return piece;
  }
  return own;
}
