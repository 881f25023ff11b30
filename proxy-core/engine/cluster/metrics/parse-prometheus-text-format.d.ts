// Types for parse-prometheus-text-format (it ships none): the prom2json-shaped families it returns.
// Values stay strings as the text had them ("+Inf", "1.5e3"); histograms and summaries, which
// Peerscope does not read, carry buckets or quantiles instead of a value.
declare module 'parse-prometheus-text-format' {
  export interface ParsedSample {
    readonly value?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly timestamp_ms?: string;
    readonly buckets?: Readonly<Record<string, string>>;
    readonly quantiles?: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
  }
  export interface ParsedFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly ParsedSample[];
  }
  /** Throws on a line that is not the text format. */
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
