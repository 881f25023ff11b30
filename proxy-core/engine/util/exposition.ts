// The metric families of /.peerscope/metrics, in one prom-client registry (docs/decisions.md says why).
// Each part of the port counts in its own structures, which costs the request path nothing more; a
// family reads them when the registry is scraped (prom-client's collect), so nothing is counted twice.
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
  /** The series as they are now, read at each scrape: a series not given is not printed (never a zero). */
  readonly samples: () => Iterable<Sample<L>>;
}

/** Registers a family whose series are read from the owner's counters at each scrape. */
export function registerFamily<L extends string>(registry: Registry, family: Family<L>): void {
  const { name, help, labelNames, samples } = family;
  if (family.type === 'counter')
    new Counter<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const s of samples()) this.inc(s.labels, s.value);
      },
    });
  else
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const s of samples()) this.set(s.labels, s.value);
      },
    });
}
