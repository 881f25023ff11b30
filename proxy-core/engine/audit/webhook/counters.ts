// What the webhook receiver took in, in /.peerscope/metrics: batches and events per server, and every
// batch or event it could not use, per sender and reason (never fatal: the sender gets an answer saying
// why, and the receiver goes on). A series exists once it has counted something.
import type { Registry } from 'prom-client';
import { registerFamily } from '../../util/exposition.js';

/** Why a batch or an event was not used: a short fixed phrase, so the label set stays small. */
export type WebhookProblem = 'sender not allowed' | 'not POST' | 'body too large' | 'not JSON' | 'not an EventList' | 'event not usable';

export class WebhookCounters {
  /** Per server: batches and the events in them. */
  private readonly batches = new Map<string, { batches: number; events: number }>();
  private readonly problems = new Map<string, { labels: { sender: string; reason: WebhookProblem }; value: number }>();

  batch(server: string, events: number): void {
    const row = this.batches.get(server);
    if (row) {
      row.batches++;
      row.events += events;
    } else this.batches.set(server, { batches: 1, events });
  }

  /** `sender` is the server's name, or what can be told of a sender that is not allowed (its address). */
  problem(sender: string, reason: WebhookProblem, n = 1): void {
    const key = `${sender}\u0000${reason}`;
    const row = this.problems.get(key);
    if (row) row.value += n;
    else this.problems.set(key, { labels: { sender, reason }, value: n });
  }

  /** One line for a terminal: batches per server, and the problems. */
  summary(): string {
    const batches = [...this.batches.values()].reduce((a, b) => a + b.batches, 0);
    const problems = [...this.problems.values()].reduce((a, b) => a + b.value, 0);
    const servers = [...this.batches.keys()];
    return `${batches} batch(es)${servers.length ? ` from ${servers.join(', ')}` : ''}, ${problems} problem(s)`;
  }

  /** Adds the families to the port's registry; each scrape reads the counts as they are then. */
  register(registry: Registry): void {
    const perServer = (pick: (row: { batches: number; events: number }) => number) => () =>
      [...this.batches].map(([server, row]) => ({ labels: { server }, value: pick(row) }));
    registerFamily(registry, {
      name: 'peerscope_cluster_webhook_batches_total',
      help: 'EventList batches each apiserver posted to the audit webhook receiver.',
      type: 'counter',
      labelNames: ['server'],
      serverLabels: ['server'],
      samples: perServer((row) => row.batches),
    });
    registerFamily(registry, {
      name: 'peerscope_cluster_webhook_events_total',
      help: 'Audit events in those batches (every stage).',
      type: 'counter',
      labelNames: ['server'],
      serverLabels: ['server'],
      samples: perServer((row) => row.events),
    });
    registerFamily(registry, {
      name: 'peerscope_cluster_webhook_problems_total',
      help: 'Batches or events the audit webhook receiver could not use, by sender (a server, or the address of one not allowed) and reason.',
      type: 'counter',
      labelNames: ['sender', 'reason'],
      samples: () => this.problems.values(),
    });
  }
}
