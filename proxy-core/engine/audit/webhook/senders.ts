// Who may post audit events to the webhook receiver, and which server each sender is: a server is
// named by the bearer token its --audit-webhook-config-file sends (`--audit-webhook-token NAME=FILE`),
// or by the common name of a client certificate signed by `--audit-webhook-client-ca`. Anyone else is
// refused, and named by what can be told of it (its address, the certificate it showed).
import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { InputError } from '../../util/input-error.js';
import { ServerNames } from '../../cluster/server-names.js';
import type { NamedServer } from '../../cluster/display-names.js';
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

/**
 * Each token's SERVER as the identity it names (a host name as the screens print it, or a lease name);
 * a name of no server now is kept as given and listed in `unknown` (a server may join later).
 */
export function resolveWebhookTokens(
  specs: readonly WebhookTokenSpec[],
  servers: readonly NamedServer[],
): { specs: WebhookTokenSpec[]; unknown: string[] } {
  if (servers.length === 0) return { specs: [...specs], unknown: [] };
  const names = new ServerNames(servers);
  const unknown: string[] = [];
  const resolved = specs.map((spec) => {
    const found = names.candidates(spec.server);
    if (found.length === 1) return { ...spec, server: found[0]! };
    unknown.push(spec.server);
    return spec;
  });
  return { specs: resolved, unknown };
}

/**
 * The server a request comes from, or why it is refused: 401 when it showed no credential the receiver
 * takes, 403 when its client certificate is valid but names no known server.
 */
export type Sender = { readonly server: string } | { readonly refused: string; readonly who: string; readonly status: 401 | 403 };

/** What the receiver takes, for the answer to a sender it refuses. */
const ACCEPTS = 'post with a bearer token (--audit-webhook-token) or a client certificate signed by --audit-webhook-client-ca';

export class WebhookSenders {
  private readonly tokens: { readonly server: string; readonly token: Buffer }[];

  /**
   * Reads each token file now: a missing or empty one is an InputError naming it. `servers`: the known
   * servers, read at each post (servers join); a client certificate's common name must name one of them
   * (a host name or a lease name). Absent: none is known, and no certificate is taken.
   */
  constructor(
    specs: readonly WebhookTokenSpec[],
    private readonly servers: () => readonly NamedServer[] = () => [],
  ) {
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
    if (auth && /^Basic\s/i.test(auth)) return { refused: `Basic authentication is not taken: ${ACCEPTS}`, who: address, status: 401 };
    if (auth) {
      const m = /^Bearer\s+(\S+)$/i.exec(auth);
      const given = Buffer.from(m?.[1] ?? '');
      // Every token is compared, in constant time each, so the time taken tells nothing of a near miss.
      let server: string | undefined;
      for (const t of this.tokens) if (t.token.length === given.length && timingSafeEqual(t.token, given)) server = t.server;
      return server ? { server } : { refused: `its bearer token names no server: ${ACCEPTS}`, who: address, status: 401 };
    }
    // A client certificate the TLS layer verified against --audit-webhook-client-ca.
    if (socket.authorized) {
      const cn = socket.getPeerCertificate()?.subject?.CN;
      const name = Array.isArray(cn) ? cn[0] : cn;
      if (!name) return { refused: 'its client certificate has no common name', who: address, status: 403 };
      // The common name must name a known server: any certificate the CA signed is not a server.
      const found = new ServerNames(this.servers()).candidates(name);
      if (found.length === 1) return { server: found[0]! };
      return { refused: `its client certificate's common name names no known server`, who: address, status: 403 };
    }
    const cert = socket.getPeerCertificate?.();
    if (cert && Object.keys(cert).length > 0)
      return {
        refused: `its client certificate was not signed by --audit-webhook-client-ca (${String(socket.authorizationError)})`,
        who: address,
        status: 401,
      };
    return { refused: `no bearer token and no client certificate: ${ACCEPTS}`, who: address, status: 401 };
  }
}
