// The one resolver of the names a person types for a server (a flag's NAME=, `--policy pin:`, an audit
// input): the host name the screens print (`sim-2`, `cp-1`), the name told apart by displayNames
// (`cp-1 (fa6myr)`), or the identity — the lease name (`apiserver-sim-2`, `apiserver-fa6myrjs…`) or a
// --server NAME. It answers with the identity, which stays the key everywhere else; a name that names
// no server, or several, is an error that lists the servers as the screens print them.
import { InputError } from '../util/input-error.js';
import { displayNames, type NamedServer } from './display-names.js';

const LEASE_PREFIX = 'apiserver-';
/** The shortest piece of a lease name taken for it: the length displayNames shows beside a shared host name. */
const MIN_LEASE_PIECE = 6;

export class ServerNames {
  private readonly shown: Map<string, string>;

  constructor(private readonly servers: readonly NamedServer[]) {
    this.shown = displayNames(servers);
  }

  /** The identities `typed` may mean, best evidence first: an identity, a shown name, a host name, a unique start of a lease name. */
  candidates(typed: string): string[] {
    const name = typed.trim();
    if (this.shown.has(name)) return [name];
    const byShown = [...this.shown].filter(([, shown]) => shown === name).map(([id]) => id);
    if (byShown.length > 0) return byShown;
    const byHost = this.servers.filter((s) => s.hostname === name).map((s) => s.name);
    if (byHost.length > 0) return byHost;
    const piece = name.startsWith(LEASE_PREFIX) ? name.slice(LEASE_PREFIX.length) : name;
    if (piece.length < MIN_LEASE_PIECE) return [];
    return this.servers
      .filter((s) => s.name.startsWith(LEASE_PREFIX) && s.name.slice(LEASE_PREFIX.length).startsWith(piece))
      .map((s) => s.name);
  }

  /** The identity `typed` names; an InputError under `flag` when it names none or several. */
  resolve(typed: string, flag: string): string {
    const found = this.candidates(typed);
    if (found.length === 1) return found[0]!;
    if (found.length === 0) throw new InputError(flag, `no server is named "${typed}" (servers: ${this.known()})`);
    throw new InputError(flag, `"${typed}" names several servers: ${found.map((id) => this.labelled(id)).join(', ')}; give the lease name`);
  }

  /** The name the screens print: the host name, told apart where two servers share one. */
  shownName(id: string): string {
    return this.shown.get(id) ?? id;
  }

  /** "host name (lease name)" where they differ, for the places the identity matters (errors, audit inputs). */
  labelled(id: string): string {
    const shown = this.shownName(id);
    return shown === id || shown.includes(id) ? shown : `${shown} (${id})`;
  }

  /** Every server as `labelled` prints it, in their order; what an error lists. */
  known(): string {
    return this.servers.length > 0 ? this.servers.map((s) => this.labelled(s.name)).join(', ') : 'none known';
  }
}
