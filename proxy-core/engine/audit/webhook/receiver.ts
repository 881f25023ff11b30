// The audit webhook receiver: a TLS listener of its own that kube-apiserver's
// --audit-webhook-config-file posts audit.k8s.io/v1 EventList batches to. Each sender is a server,
// named by its bearer token or client certificate (senders.ts); each event of a batch is parsed as a
// line of a log file is and handed on. Nothing a sender posts is fatal: a sender not allowed, a body
// that is not JSON or not an EventList, an event that is not usable — each is counted, named and
// answered (401, 405, 413, 400), and the receiver goes on.
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AUDIT_API_VERSION, AUDIT_KIND, type AuditRecord } from '../event.js';
import { parseAuditValue } from '../parse-line.js';
import { describeField, jsonFault } from '../json-fault.js';
import { WebhookCounters, type WebhookProblem } from './counters.js';
import type { WebhookSenders } from './senders.js';

/** kube-apiserver's batches are at most 400 events (--audit-webhook-batch-max-size); at level RequestResponse an event can be large. */
export const MAX_BATCH_BYTES = 64 * 1024 * 1024;
const EVENT_LIST = 'EventList';

export interface AuditWebhookOptions {
  readonly host: string;
  readonly port: number;
  /** PEM serving certificate and key (the operator's, or one Peerscope generated). */
  readonly cert: string;
  readonly key: string;
  /** PEM CA that signs the servers' client certificates; without it only bearer tokens name a sender. */
  readonly clientCa?: string;
  readonly senders: WebhookSenders;
  /** Each usable event, of the server that posted it, in the order of its batch. */
  readonly onRecord: (record: AuditRecord) => void;
  /** A batch or event not used, named: for a log line. */
  readonly onProblem?: (sender: string, reason: WebhookProblem, detail: string) => void;
}

export interface AuditWebhook {
  readonly url: string;
  readonly counters: WebhookCounters;
  close(): Promise<void>;
}

export async function startAuditWebhook(options: AuditWebhookOptions): Promise<AuditWebhook> {
  const counters = new WebhookCounters();
  const problem = (sender: string, reason: WebhookProblem, detail: string, n = 1) => {
    counters.problem(sender, reason, n);
    options.onProblem?.(sender, reason, detail);
  };
  const server: Server = createServer(
    {
      cert: options.cert,
      key: options.key,
      // Asked for, verified against the client CA, but not required: a sender without one may bring a
      // token, and a refused one is answered and counted rather than cut off in the handshake.
      ...(options.clientCa ? { ca: options.clientCa, requestCert: true, rejectUnauthorized: false } : {}),
    },
    (req, res) => void handle(req, res),
  );

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sender = options.senders.senderOf(req);
    if ('refused' in sender) {
      problem(sender.who, 'sender not allowed', sender.refused);
      req.resume();
      return answer(
        res,
        sender.status,
        sender.status === 403 ? 'Forbidden' : 'Unauthorized',
        `not allowed to post audit events: ${sender.refused}`,
      );
    }
    const name = sender.server;
    if (req.method !== 'POST') {
      // The path only: a query string may carry a secret.
      problem(name, 'not POST', `${req.method ?? '?'} ${(req.url ?? '').split('?')[0]}`);
      req.resume();
      return answer(res, 405, 'MethodNotAllowed', 'post audit.k8s.io/v1 EventList batches');
    }
    let body: Buffer;
    try {
      body = await readBody(req, MAX_BATCH_BYTES);
    } catch {
      problem(name, 'body too large', `more than ${MAX_BATCH_BYTES} bytes`);
      return answer(res, 413, 'RequestEntityTooLarge', `a batch is at most ${MAX_BATCH_BYTES} bytes`);
    }
    let value: unknown;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      // Never JSON.parse's message: it quotes the text around the fault.
      problem(name, 'not JSON', jsonFault(body.toString('utf8')));
      return answer(res, 400, 'BadRequest', 'the body is not JSON');
    }
    const list = value as { apiVersion?: unknown; kind?: unknown; items?: unknown };
    if (
      typeof value !== 'object' ||
      value === null ||
      list.kind !== EVENT_LIST ||
      list.apiVersion !== AUDIT_API_VERSION ||
      !Array.isArray(list.items)
    ) {
      problem(name, 'not an EventList', `apiVersion ${describeField(list?.apiVersion)}, kind ${describeField(list?.kind)}`);
      return answer(res, 400, 'BadRequest', `not an ${AUDIT_API_VERSION} ${EVENT_LIST}`);
    }
    counters.batch(name, list.items.length);
    list.items.forEach((item, i) => {
      // The items of a list carry no apiVersion and kind of their own: the list's are theirs.
      const event =
        typeof item === 'object' && item !== null && !Array.isArray(item)
          ? { apiVersion: AUDIT_API_VERSION, kind: AUDIT_KIND, ...item }
          : item;
      const parsed = parseAuditValue(name, event);
      if (parsed.kind === 'record') options.onRecord(parsed.record);
      else problem(name, 'event not usable', `item ${i}: ${parsed.why}`);
    });
    answer(res, 200, 'Success', `${list.items.length} event(s) received`);
  }

  server.listen(options.port, options.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `https://${host}:${port}`,
    counters,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.pause();
        reject(new Error('too large'));
        return;
      }
      chunks.push(c);
    });
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** A metav1 Status, as kube-apiserver's own webhook client expects an apiserver-style answer. */
function answer(res: ServerResponse, code: number, reason: string, message: string): void {
  const status = code === 200 ? 'Success' : 'Failure';
  res
    .writeHead(code, { 'content-type': 'application/json', ...(code === 413 ? { connection: 'close' } : {}) })
    .end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status, reason, message, code }));
}
