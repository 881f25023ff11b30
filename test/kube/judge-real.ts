// Judging a traffic run against a real control plane that rolled out under it. The simulated
// rollout's judge (proxy-core/sim/traffic/judge.ts) reads the simulated store; here the truth is
// the real servers: when each was ready with which release (the harness knows when it started and
// stopped each one) and what etcd holds afterwards (read back from a running server).
// - false 404: a 404 on a list, sweep or create for a GVR that a server ready for the request's
//   whole life (widened by `slackMs`) served;
// - unjustified 503: a 503 while such a server served the GVR;
// - lost write: an acknowledged create missing (or with another uid), or an acknowledged delete
//   still present; writes without a definite answer are uncertain, not judged;
// - duplicated write: two acknowledged creates of one name, or a 409 on a create of a generated name.
import type { ReleaseCatalog } from '../../proxy-core/engine/releases/index.js';
import type { TrafficResult, TrafficSummary } from '../../proxy-core/sim/traffic/index.js';
import { serves } from '../../proxy-core/sim/traffic/judge.js';

export interface ReadyWindow {
  readonly server: string;
  readonly release: ReleaseCatalog;
  readonly from: number;
  readonly to: number;
}

export interface RealJudgement {
  readonly requests: number;
  readonly falseNotFound: number;
  readonly noAnswer: number;
  readonly all503: number;
  readonly unjustified503: number;
  readonly acknowledgedWrites: number;
  readonly lostWrites: number;
  readonly uncertainWrites: number;
  readonly duplicateWrites: number;
  readonly watchEvents: number;
  readonly byStatus: Record<string, number>;
  readonly examples: string[];
}

/** Reads one object back: its uid, or undefined when it is not there. */
export type ReadBack = (gvr: string, namespace: string, name: string) => Promise<string | undefined>;

export async function judgeRealRun(
  results: readonly TrafficResult[],
  summary: TrafficSummary,
  windows: readonly ReadyWindow[],
  slackMs: number,
  readBack: ReadBack,
  explain?: (r: TrafficResult) => string | undefined,
): Promise<RealJudgement> {
  const examples: string[] = [];
  const servedThroughout = (r: TrafficResult) =>
    windows.some((w) => w.from + slackMs <= r.at - r.ms && r.at + slackMs <= w.to && serves(w.release, r.gvr));
  const collectionOrCreate = (r: TrafficResult) => r.kind === 'list' || r.kind === 'ns-sweep' || r.kind === 'create';
  const said = (r: TrafficResult) => {
    const e = explain?.(r);
    return e ? ` (${e})` : '';
  };
  const falseNotFound = results.filter((r) => r.status === 404 && collectionOrCreate(r) && servedThroughout(r));
  for (const r of falseNotFound.slice(0, 3)) examples.push(`false 404 ${r.kind} ${r.gvr} via ${r.target}${said(r)}`);
  const all503 = results.filter((r) => r.status === 503);
  const unjustified503 = all503.filter(servedThroughout);
  for (const r of unjustified503.slice(0, 3)) examples.push(`unjustified 503 ${r.kind} ${r.gvr} via ${r.target}${said(r)}`);

  const deleted = new Set(summary.writes.filter((w) => w.op === 'delete').map((w) => w.name));
  const creates = summary.writes.filter((w) => w.op === 'create' && w.gvr !== '/v1/namespaces');
  const uncertain = new Set(summary.uncertain);
  let lostWrites = 0;
  for (const w of creates) {
    if (uncertain.has(w.name)) continue;
    const uid = await readBack(w.gvr, w.namespace, w.name);
    const lost = deleted.has(w.name) ? uid !== undefined : uid !== w.uid;
    if (lost && ++lostWrites <= 3)
      examples.push(
        `write ${w.gvr} ${w.name}: ${deleted.has(w.name) ? 'deleted but still stored' : `acknowledged uid ${w.uid}, stored ${String(uid)}`}`,
      );
  }
  const duplicateWrites =
    creates.length -
    new Set(creates.map((w) => w.name)).size +
    results.filter((r) => r.kind === 'create' && r.status === 409 && r.gvr !== '/v1/namespaces').length;
  return {
    requests: results.length,
    falseNotFound: falseNotFound.length,
    noAnswer: results.filter((r) => r.status === 0).length,
    all503: all503.length,
    unjustified503: unjustified503.length,
    acknowledgedWrites: creates.length,
    lostWrites,
    uncertainWrites: uncertain.size,
    duplicateWrites,
    watchEvents: summary.watchEvents,
    byStatus: summary.byStatus,
    examples,
  };
}

export function figuresRow(name: string, f: RealJudgement): string {
  return `${name.padEnd(34)} requests ${String(f.requests).padStart(5)}  false 404 ${String(f.falseNotFound).padStart(3)}  no answer ${String(f.noAnswer).padStart(3)}  503 ${String(f.all503).padStart(3)} (unjustified ${f.unjustified503})  writes ${f.acknowledgedWrites}: lost ${f.lostWrites}, duplicated ${f.duplicateWrites}, uncertain ${f.uncertainWrites}  watch events ${f.watchEvents}  statuses ${JSON.stringify(f.byStatus)}`;
}
