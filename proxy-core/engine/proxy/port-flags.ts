// The local port's own settings as flags, declared once: every command that hosts the port (serve,
// demo: cli/port-options.ts) and the desktop app (electron/shell/port-settings.ts) read this table,
// beside PORT_FILTER_FLAGS (port-filters.ts) for the filters. A command takes the rows it offers;
// a text that speaks of another row says so only where that row is offered too.
import { discoveryModeSchema, type DiscoveryMode } from '../../contract/settings.js';
import { formatPolicy, parsePolicy, type HandlingPolicy } from './policy.js';

/** Where the port listens, as a flag gives it. */
export interface ListenAt {
  readonly host: string;
  readonly port: number;
}

export interface PortFlag<T> {
  /** The flag without its dashes. */
  readonly name: string;
  /** What the value is, as --help shows it; none for a switch. */
  readonly value?: string;
  readonly help: string;
  readonly defaultValue: T;
  /** The default as a user types it. */
  readonly defaultText?: string;
  /** One value of the flag; throws an Error whose message says what is wrong with it. */
  readonly read: (value: string) => T;
}

export const LISTEN_FLAG: PortFlag<ListenAt> = {
  name: 'listen',
  value: '<host:port>',
  help: 'where the local port listens',
  defaultValue: { host: '127.0.0.1', port: 8001 },
  defaultText: '127.0.0.1:8001',
  read: readListen,
};

export const POLICY_FLAG: PortFlag<HandlingPolicy> = {
  name: 'policy',
  value: '<policy>',
  help: 'which server a load balancer would hand each request to: round-robin, random or pin:NAME',
  defaultValue: { kind: 'round-robin' },
  defaultText: formatPolicy({ kind: 'round-robin' }),
  read: parsePolicy,
};

export const DISCOVERY_FLAG: PortFlag<DiscoveryMode> = {
  name: 'discovery',
  value: '<mode>',
  help: "peer-aggregated (merge /apis across servers) or nopeer (the handling server's own)",
  defaultValue: 'peer-aggregated',
  defaultText: 'peer-aggregated',
  read: (value) => {
    const mode = discoveryModeSchema.safeParse(value);
    if (mode.success) return mode.data;
    throw new Error(`"${value}" is not peer-aggregated or nopeer`);
  },
};

export const FAITHFUL_FLAG: PortFlag<boolean> & { readonly withDiscovery: string } = {
  name: 'faithful',
  help: "do exactly what the servers' own Mixed Version Proxy does: OpenAPI and legacy discovery (/apis without the aggregated Accept, /apis/G, /apis/G/V) are the handling server's own, as without Peerscope",
  /** Said after the help where --discovery is offered too. */
  withDiscovery: '(--discovery keeps its meaning)',
  defaultValue: false,
  read: readSwitch('faithful'),
};

/** `host:port`, `[v6]:port` or `:port` (127.0.0.1); port 0 picks a free one. */
export function readListen(value: string): ListenAt {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value);
  const port = Number(m?.[3]);
  if (!m || port > 65535) throw new Error(`"${value}" is not HOST:PORT (for example 127.0.0.1:8001; port 0 picks a free one)`);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

/** A switch given as `--name=true|false` (the bare `--name` is true). */
function readSwitch(name: string): (value: string) => boolean {
  return (value) => {
    if (value === 'true' || value === 'false') return value === 'true';
    throw new Error(`--${name} takes no value, or true or false (not "${value}")`);
  };
}
