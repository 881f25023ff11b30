// Label sets of the Prometheus text format (version 0.0.4), for /.peerscope/metrics.

/** A label value with backslash, double quote and newline escaped. */
export function labelValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** `name="value",…` in the order given. */
export function labelSet(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}="${labelValue(v)}"`)
    .join(',');
}
