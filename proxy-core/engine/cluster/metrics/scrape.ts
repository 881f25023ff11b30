// One read of an apiserver's /metrics, parsed once by parse-prometheus-text-format (docs/decisions.md
// says why that library) into the few families Peerscope reads; every reader of the scrape (the
// server's own peer-proxy counters, its request counts, the deprecated APIs requested) takes its
// families from here instead of parsing the text again.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One series of a counter or gauge: its labels and its value. */
export interface MetricSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The families a scrape had, by name; a family the server printed no series of is absent. */
export type MetricFamilies = ReadonlyMap<string, readonly MetricSample[]>;

/**
 * The counter and gauge families of `wanted` in a text-format scrape. A series whose value is not a
 * finite number is left out (kube-apiserver counts never are); the rest of the text is not kept.
 * Throws when the text is not the Prometheus text format.
 */
export function parseScrape(text: string, wanted: ReadonlySet<string>): MetricFamilies {
  const families = new Map<string, MetricSample[]>();
  // The library ends a sample at its newline: a last line without one would be dropped unseen.
  for (const family of parsePrometheusTextFormat(text.endsWith('\n') ? text : `${text}\n`)) {
    if (!wanted.has(family.name)) continue;
    const samples: MetricSample[] = [];
    for (const m of family.metrics) {
      const value = Number(m.value);
      if (m.value !== undefined && Number.isFinite(value)) samples.push({ labels: { ...m.labels }, value });
    }
    if (samples.length > 0) families.set(family.name, [...(families.get(family.name) ?? []), ...samples]);
  }
  return families;
}
