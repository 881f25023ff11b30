// The bad input of the cluster source, counted and named the same wherever the core reads it (followed
// audit logs, webhook batches): a series per server, source and reason in /.peerscope/metrics, the
// first few named for the UI's cluster status, and one line per file (or sender) and reason for a
// terminal — the first at once, then every RETOLD_EVERY-th with its count, never one per line.
import type { AuditProblemsSummary, AuditProblem } from '../../contract/cluster.js';
import type { Registry } from 'prom-client';
import { registerFamily } from '../util/exposition.js';

const PROBLEM_LABELS = ['server', 'source', 'reason'] as const;

/** How many problems are named one by one (the UI shows them); the rest are counted. */
export const PROBLEMS_NAMED = 5;
/** A problem already told is told again with its count every so many. */
export const RETOLD_EVERY = 1000;

export class AuditProblems {
  private readonly counts = new Map<string, { labels: Record<(typeof PROBLEM_LABELS)[number], string>; value: number }>();
  private readonly told = new Map<string, number>();
  private readonly named: AuditProblem[] = [];
  private total = 0;

  /** `tell`: where a line for a terminal goes (serve's and demo's standard error); absent, nothing is told. */
  constructor(private readonly tell?: (line: string) => void) {}

  /** One problem; `input` is the file or the sender, `where` its place (file:line, item i), `detail` what is wrong (never input text). */
  add(p: AuditProblem & { readonly input: string }): void {
    this.total++;
    const key = `${p.server}\u0000${p.source}\u0000${p.reason}`;
    const row = this.counts.get(key);
    if (row) row.value++;
    else this.counts.set(key, { labels: { server: p.server, source: p.source, reason: p.reason }, value: 1 });
    if (this.named.length < PROBLEMS_NAMED)
      this.named.push({ server: p.server, source: p.source, reason: p.reason, where: p.where, detail: p.detail });
    const toldKey = `${p.input}\u0000${p.reason}`;
    const n = (this.told.get(toldKey) ?? 0) + 1;
    this.told.set(toldKey, n);
    const what = p.source === 'audit-log' ? `audit log ${p.input} (server ${p.server})` : `audit webhook sender ${p.input}`;
    // The webhook's senders are told by its own log (cli/audit-webhook-flags.ts webhookProblemLog).
    if (p.source !== 'audit-log') return;
    if (n === 1)
      this.tell?.(
        `peerscope: ${what}: ${p.reason}: ${p.where}: ${p.detail} (the rest is read; every one is counted in /.peerscope/metrics)`,
      );
    else if (n % RETOLD_EVERY === 0) this.tell?.(`peerscope: ${what}: ${p.reason}: ${n} so far (the latest at ${p.where})`);
  }

  summary(): AuditProblemsSummary {
    return { count: this.total, first: [...this.named] };
  }

  /** Adds peerscope_cluster_audit_problems_total to the port's registry; each scrape reads the counts then. */
  register(registry: Registry): void {
    registerFamily(registry, {
      name: 'peerscope_cluster_audit_problems_total',
      help: 'Audit input the core could not use (a line of a followed log, a batch or event a server posted), by server, source and reason; the rest is read.',
      type: 'counter',
      labelNames: PROBLEM_LABELS,
      serverLabels: ['server'],
      samples: () => this.counts.values(),
    });
  }
}
