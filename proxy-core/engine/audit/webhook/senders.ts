// Who may post audit events to the webhook receiver, and which server each sender is: a server is
// named by the bearer token its --audit-webhook-config-file sends (`--audit-webhook-token NAME=FILE`),
// or by the common name of a client certificate signed by `--audit-webhook-client-ca`. Anyone else is
// refused, and named by what can be told of it (its address, the certificate it showed).
import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { InputError } from '../../util/input-error.js';
import { errnoWords } from '../../util/errno.js';

export interface WebhookTokenSpec {
  readonly server: string;
  readonly file: string;
}

/** `NAME=FILE`, for a repeatable option. */
export function collectWebhookToken(value: string, previous: WebhookTokenSpec[] = []): WebhookTokenSpec[] {
  const eq = value.indexOf('=');
  if (eq <= 0 || eq === value.length - 1) throw new InputError('--audit-webhook-token', `"${value}": give it as SERVER=TOKEN_FILE`);
  return [...previous, { server: value.slice(0, eq), file: value.slice(eq + 1) }];
}

export type Sender = { readonly server: string } | { readonly refused: string; readonly who: string };

export class WebhookSenders {
  private readonly tokens: { readonly server: string; readonly token: Buffer }[];

  /** Reads each token file now: a missing or empty one is an InputError naming it. */
  constructor(specs: readonly WebhookTokenSpec[]) {
    this.tokens = specs.map((s) => {
      let token: string;
      try {
        token = readFileSync(s.file, 'utf8').trim();
      } catch (err) {
        throw new InputError(`--audit-webhook-token ${s.server}=${s.file}`, `cannot read: ${errnoWords(err)}`);
      }
      if (!token) throw new InputError(`--audit-webhook-token ${s.server}=${s.file}`, 'the file is empty');
      return { server: s.server, token: Buffer.from(token) };
    });
  }

  /** The server a request comes from, or why it is refused. */
  senderOf(req: IncomingMessage): Sender {
    const socket = req.socket as TLSSocket;
    const address = socket.remoteAddress ?? 'unknown address';
    const auth = req.headers.authorization;
    if (auth) {
      const m = /^Bearer\s+(\S+)$/i.exec(auth);
      const given = Buffer.from(m?.[1] ?? '');
      // Every token is compared, in constant time each, so the time taken tells nothing of a near miss.
      let server: string | undefined;
      for (const t of this.tokens) if (t.token.length === given.length && timingSafeEqual(t.token, given)) server = t.server;
      return server ? { server } : { refused: 'its bearer token names no server', who: address };
    }
    // A client certificate the TLS layer verified against --audit-webhook-client-ca.
    if (socket.authorized) {
      const cn = socket.getPeerCertificate()?.subject?.CN;
      const name = Array.isArray(cn) ? cn[0] : cn;
      if (name) return { server: name };
      return { refused: 'its client certificate has no common name', who: address };
    }
    const cert = socket.getPeerCertificate?.();
    if (cert && Object.keys(cert).length > 0)
      return {
        refused: `its client certificate was not signed by --audit-webhook-client-ca (${String(socket.authorizationError)})`,
        who: address,
      };
    return { refused: 'no bearer token and no client certificate', who: address };
  }
}
