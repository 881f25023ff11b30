// Compares two snapshots (before → after an upgrade step): servers added, removed and upgraded,
// GVRs each server gained and lost, GVRs that became or stopped being skewed, and per GVR the
// shares of 404 / 503 / rerouted outcomes that changed — compared only for GVRs both snapshots saw
// requests for: against a snapshot without traffic, "50% → 0%" would read as a change that is not one.
import type { RoutingSnapshot, SnapshotDiff } from '../../contract/snapshot.js';

const WATCHED = ['notfound', 'unavailable', 'rerouted'] as const;

export function diffSnapshots(before: RoutingSnapshot, after: RoutingSnapshot): SnapshotDiff {
  const a = new Map(before.servers.map((s) => [s.name, s]));
  const b = new Map(after.servers.map((s) => [s.name, s]));
  const added = [...b.keys()].filter((n) => !a.has(n)).sort();
  const removed = [...a.keys()].filter((n) => !b.has(n)).sort();
  const upgraded: SnapshotDiff['servers']['upgraded'] = [];
  const healthChanged: SnapshotDiff['servers']['healthChanged'] = [];
  const gvrs: SnapshotDiff['gvrs'] = [];
  for (const [name, was] of a) {
    const now = b.get(name);
    if (!now) continue;
    if ((was.gitVersion ?? '') !== (now.gitVersion ?? '')) upgraded.push({ name, from: was.gitVersion ?? '?', to: now.gitVersion ?? '?' });
    if (was.health !== now.health) healthChanged.push({ name, from: was.health, to: now.health });
    const wasSet = new Set(was.discovery.gvrs);
    const nowSet = new Set(now.discovery.gvrs);
    const gained = now.discovery.gvrs.filter((g) => !wasSet.has(g));
    const lost = was.discovery.gvrs.filter((g) => !nowSet.has(g));
    if (gained.length || lost.length) gvrs.push({ server: name, gained, lost });
  }
  const skewBefore = new Set(before.routeTable.skewed);
  const skewAfter = new Set(after.routeTable.skewed);
  const rateBefore = outcomeShares(before);
  const rateAfter = outcomeShares(after);
  const outcomeRates: SnapshotDiff['outcomeRates'] = [];
  for (const gvr of [...new Set([...rateBefore.keys(), ...rateAfter.keys()])].sort()) {
    const x = rateBefore.get(gvr);
    const y = rateAfter.get(gvr);
    if (!x?.total || !y?.total) continue;
    for (const outcome of WATCHED) {
      const before = (x.counts[outcome] ?? 0) / x.total;
      const after = (y.counts[outcome] ?? 0) / y.total;
      if (Math.abs(before - after) > 1e-9)
        outcomeRates.push({
          gvr,
          outcome,
          before: round(before),
          after: round(after),
          requestsBefore: x.total,
          requestsAfter: y.total,
        });
    }
  }
  return {
    servers: { added, removed, upgraded, healthChanged },
    gvrs,
    skew: {
      became: [...skewAfter].filter((g) => !skewBefore.has(g)).sort(),
      resolved: [...skewBefore].filter((g) => !skewAfter.has(g)).sort(),
    },
    outcomeRates,
  };
}

function outcomeShares(s: RoutingSnapshot): Map<string, { total: number; counts: Partial<Record<string, number>> }> {
  const out = new Map<string, { total: number; counts: Partial<Record<string, number>> }>();
  for (const c of s.counters) {
    if (!c.gvr) continue;
    let entry = out.get(c.gvr);
    if (!entry) out.set(c.gvr, (entry = { total: 0, counts: {} }));
    entry.total += c.count;
    entry.counts[c.outcome] = (entry.counts[c.outcome] ?? 0) + c.count;
  }
  return out;
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

/**
 * The diff as text for a terminal; `nameOf` gives the name a person reads for a server
 * (snapshotServerNames), `releaseOf` the one printed form of a release (releases/release-names.ts).
 */
export function formatDiff(
  d: SnapshotDiff,
  nameOf: (name: string) => string = (name) => name,
  releaseOf: (gitVersion: string) => string = (v) => v,
): string {
  const lines: string[] = [];
  const section = (title: string, items: string[]) => {
    if (items.length) lines.push(`${title}:`, ...items.map((i) => `  ${i}`));
  };
  section('servers added', d.servers.added.map(nameOf));
  section('servers removed', d.servers.removed.map(nameOf));
  section(
    'servers upgraded',
    d.servers.upgraded.map((u) => `${nameOf(u.name)}: ${releaseOf(u.from)} → ${releaseOf(u.to)}`),
  );
  section(
    'health changed',
    d.servers.healthChanged.map((h) => `${nameOf(h.name)}: ${h.from} → ${h.to}`),
  );
  for (const g of d.gvrs) {
    section(`${nameOf(g.server)} gained`, g.gained);
    section(`${nameOf(g.server)} lost`, g.lost);
  }
  section('became skewed', d.skew.became);
  section('no longer skewed', d.skew.resolved);
  section(
    'outcome shares changed',
    d.outcomeRates.map(
      (r) => `${r.gvr} ${r.outcome}: ${pct(r.before)} → ${pct(r.after)} (${r.requestsBefore} → ${r.requestsAfter} requests)`,
    ),
  );
  return lines.length ? lines.join('\n') + '\n' : 'no differences\n';
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}
