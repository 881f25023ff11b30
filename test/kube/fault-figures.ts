// The figures of one side of a fault test (fault-load.ts's records, and the namespace's ConfigMaps
// read back afterwards), and the side-by-side table row they print: the same columns as
// faults.test.ts, so the tables of docs/reliability.md read alike.
import type { LaneResult } from './fault-load.js';

export interface Figures {
  readonly requests: number;
  readonly falseNotFound: number;
  readonly status503: number;
  /** 503s whose body was a Kubernetes Status. */
  readonly status503AsStatus: number;
  readonly noAnswer: number;
  readonly writes: {
    readonly acknowledged: number;
    readonly lost: number;
    readonly duplicated: number;
    readonly uncertain: number;
    readonly toldByStatus: number;
    readonly uncertainApplied: number;
  };
  readonly watches: {
    readonly opened: number;
    readonly clean: number;
    readonly cut: number;
    readonly stalled: number;
    readonly longestStallMs: number;
  };
  readonly slowestMs: number;
  /** The 503s the port wrote itself (answering=-): their Status messages, each once. */
  readonly own503Messages: readonly string[];
  /** Of those, the ones whose Status does not name a server. */
  readonly own503Unnamed: number;
}

/** `stored`: the names of the ConfigMaps the namespace holds afterwards. */
export function figuresOf(result: LaneResult, stored: ReadonlySet<string>): Figures {
  const { requests, watches } = result;
  const creates = requests.filter((r) => r.kind === 'create');
  const uncertain = creates.filter((r) => r.status === 0 || r.status >= 500);
  const stalls = watches.flatMap((w) => w.stallsMs);
  const own503 = requests.filter((r) => r.status === 503 && /answering=-/.test(r.route ?? ''));
  return {
    requests: requests.length,
    // The namespace and the read object always exist: any 404 on them is false.
    falseNotFound: requests.filter((r) => (r.kind === 'get' || r.kind === 'list') && r.status === 404).length,
    status503: requests.filter((r) => r.status === 503).length,
    status503AsStatus: requests.filter((r) => r.status === 503 && r.statusReason !== undefined).length,
    noAnswer: requests.filter((r) => r.status === 0).length,
    writes: {
      acknowledged: creates.filter((r) => r.status === 201).length,
      lost: creates.filter((r) => r.status === 201 && !stored.has(r.name as string)).length,
      duplicated: creates.filter((r) => r.status === 409).length,
      uncertain: uncertain.length,
      toldByStatus: uncertain.filter((r) => r.statusReason !== undefined).length,
      uncertainApplied: uncertain.filter((r) => stored.has(r.name as string)).length,
    },
    watches: {
      opened: watches.length,
      clean: watches.filter((w) => w.ending === 'clean').length,
      cut: watches.filter((w) => w.ending === 'cut').length,
      stalled: watches.filter((w) => w.stallsMs.length > 0).length,
      longestStallMs: stalls.length ? Math.max(...stalls) : 0,
    },
    slowestMs: Math.max(0, ...requests.map((r) => r.ms)),
    own503Messages: [...new Set(own503.map((r) => r.statusMessage ?? '(no Status)'))],
    own503Unnamed: own503.filter((r) => !/apiserver "[^"]+"/.test(r.statusMessage ?? '')).length,
  };
}

export const seconds = (ms: number | undefined): string => (ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);

export const FIGURES_HEADER = [
  '| fault | side | requests | false 404 | 503 | no answer | writes acknowledged / lost / duplicated / uncertain | watches opened / ended cleanly / cut | watches stalled (longest) | slowest answer | noticed | back in service |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|',
];

/** One row of the table; `noticed` and `back` are the port's times, in ms or said (— for the side without a port). */
export function figuresRow(fault: string, side: string, f: Figures, noticed?: number | string, back?: number | string): string {
  const said = (t: number | string | undefined) => (typeof t === 'number' ? seconds(t) : (t ?? '—'));
  const w = f.writes;
  const cells = [
    fault,
    side,
    f.requests,
    f.falseNotFound,
    f.status503,
    f.noAnswer,
    `${w.acknowledged} / ${w.lost} / ${w.duplicated} / ${w.uncertain} (${w.toldByStatus} told by a Status, ${w.uncertainApplied} applied)`,
    `${f.watches.opened} / ${f.watches.clean} / ${f.watches.cut}`,
    `${f.watches.stalled} (${seconds(f.watches.longestStallMs)})`,
    seconds(f.slowestMs),
    said(noticed),
    said(back),
  ];
  return `| ${cells.join(' | ')} |`;
}
