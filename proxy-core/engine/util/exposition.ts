// The metric families of /.peerscope/metrics, in one prom-client registry (docs/decisions.md says why).
// Each part of the port counts in its own structures, which costs the request path nothing more; a
// family reads them when the registry is scraped (prom-client's collect), so nothing is counted twice.
// A label that holds a server carries the name a person reads (the host name, as the screens print
// it), and its identity (the lease name, or a --server NAME) beside it as `<label>_id`: the name is
// read at each scrape, since it changes as servers join (two sharing a host name are told apart).
import { Counter, Gauge, type Registry } from 'prom-client';

export interface Sample<L extends string> {
  readonly labels: Readonly<Record<L, string>>;
  readonly value: number;
}

export interface Family<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge';
  /** In the order they are printed. */
  readonly labelNames: readonly L[];
  /** The labels whose value is a server's identity: each printed with the server's name, then `<label>_id`. */
  readonly serverLabels?: readonly L[];
  /** The series as they are now, read at each scrape: a series not given is not printed (never a zero). */
  readonly samples: () => Iterable<Sample<L>>;
}

/** A server's identity → the name a person reads for it. */
export type ServerNamer = (id: string) => string;

const asIs: ServerNamer = (id) => id;
/** The namer of each registry's last scrape (scrape()); a registry never scraped through it names servers by identity. */
const namers = new WeakMap<Registry, ServerNamer>();

/** The registry's exposition, each server label as `names` tells it at this scrape. */
export function scrape(registry: Registry, names: ServerNamer = asIs): Promise<string> {
  namers.set(registry, names);
  return registry.metrics();
}

/** The suffix of the label beside a server label that keeps the server's identity. */
export const ID_SUFFIX = '_id';

/** Registers a family whose series are read from the owner's counters at each scrape. */
export function registerFamily<L extends string>(registry: Registry, family: Family<L>): void {
  const { name, help, samples } = family;
  const servers = new Set<string>(family.serverLabels ?? []);
  const labelNames = family.labelNames.flatMap((l): string[] => (servers.has(l) ? [l, `${l}${ID_SUFFIX}`] : [l]));
  const labelled = (): Iterable<Sample<string>> => {
    if (servers.size === 0) return samples();
    const names = namers.get(registry) ?? asIs;
    return [...samples()].map((s) => ({ labels: withServerNames(s.labels, servers, names), value: s.value }));
  };
  if (family.type === 'counter')
    new Counter<string>({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const s of labelled()) this.inc(s.labels, s.value);
      },
    });
  else
    new Gauge<string>({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const s of labelled()) this.set(s.labels, s.value);
      },
    });
}

function withServerNames(
  labels: Readonly<Record<string, string>>,
  servers: ReadonlySet<string>,
  names: ServerNamer,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [label, value] of Object.entries(labels)) {
    if (!servers.has(label)) {
      out[label] = value;
      continue;
    }
    out[label] = value === '' ? '' : names(value);
    out[`${label}${ID_SUFFIX}`] = value;
  }
  return out;
}
