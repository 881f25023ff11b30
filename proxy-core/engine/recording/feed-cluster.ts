// What the recording keeps of the cluster beyond health, release and discovery: each server's missing
// API registrations (the group/versions its legacy /apis lacks, by issue 44's rule) and each read of
// its /metrics. A metrics read is stored as a document without its read times, so reads that counted
// the same are one document and, read after read unchanged, one change.
import { createHash } from 'node:crypto';
import type { MissingRegistration } from '../../contract/route-table.js';
import type { ServerMetrics } from '../../contract/server-metrics.js';

/** A read's summary as stored: the times are the change's, not the document's. */
export type StoredMetrics = Omit<ServerMetrics, 'readAt' | 'previousReadAt'>;

/**
 * The group/versions of `findings` that a server's own legacy /apis (`legacy`) does not list, sorted
 * and comma-joined ('' when none): what clients of legacy discovery straight to it miss.
 */
export function missingOn(findings: readonly MissingRegistration[], legacy: readonly string[]): string {
  const listed = new Set(legacy);
  return findings
    .flatMap((f) => f.versions.map((v) => `${f.group}/${v}`))
    .filter((gv) => !listed.has(gv))
    .sort()
    .join(',');
}

/** The stored form of a read and its hash (the change's value). */
export function storedMetrics(metrics: ServerMetrics): { readonly hash: string; readonly json: string } {
  const { readAt: _readAt, previousReadAt: _previousReadAt, ...stored } = metrics;
  const json = JSON.stringify(stored satisfies StoredMetrics);
  return { hash: `sha256:${sha256(json)}`, json };
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
