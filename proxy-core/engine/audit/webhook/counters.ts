// What the webhook receiver took in, in /.peerscope/metrics: batches and events per server, and every
// batch or event it could not use, per sender and reason (never fatal: the sender gets an answer saying
// why, and the receiver goes on). A series exists once it has counted something.
import { labelSet } from '../../util/exposition.js';

/** Why a batch or an event was not used: a short fixed phrase, so the label set stays small. */
export type WebhookProblem = 'sender not allowed' | 'not POST' | 'body too large' | 'not JSON' | 'not an EventList' | 'event not usable';

export class WebhookCounters {
  private readonly batches = new Map<string, number>();
  private readonly events = new Map<string, number>();
  private readonly problems = new Map<string, number>();

  batch(server: string, events: number): void {
    const key = labelSet({ server });
    this.batches.set(key, (this.batches.get(key) ?? 0) + 1);
    this.events.set(key, (this.events.get(key) ?? 0) + events);
  }

  /** `sender` is the server's name, or what can be told of a sender that is not allowed (its address). */
  problem(sender: string, reason: WebhookProblem, n = 1): void {
    const key = labelSet({ sender, reason });
    this.problems.set(key, (this.problems.get(key) ?? 0) + n);
  }

  /** One line for a terminal: batches per server, and the problems. */
  summary(): string {
    const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    const servers = [...this.batches.keys()].map((k) => /server="(.*)"/.exec(k)?.[1] ?? k);
    return `${sum(this.batches)} batch(es)${servers.length ? ` from ${servers.join(', ')}` : ''}, ${sum(this.problems)} problem(s)`;
  }

  exposition(): string {
    const family = (name: string, help: string, values: Map<string, number>) => [
      `# HELP ${name} ${help}`,
      `# TYPE ${name} counter`,
      ...[...values].map(([labels, n]) => `${name}{${labels}} ${n}`),
    ];
    return (
      [
        ...family(
          'peerscope_cluster_webhook_batches_total',
          'EventList batches each apiserver posted to the audit webhook receiver.',
          this.batches,
        ),
        ...family('peerscope_cluster_webhook_events_total', 'Audit events in those batches (every stage).', this.events),
        ...family(
          'peerscope_cluster_webhook_problems_total',
          'Batches or events the audit webhook receiver could not use, by sender (a server, or the address of one not allowed) and reason.',
          this.problems,
        ),
      ].join('\n') + '\n'
    );
  }
}
