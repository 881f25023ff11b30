// serve's audit webhook receiver flags: where it listens, its certificate (the operator's, or one
// Peerscope generates, whose CA it writes for the servers' webhook kubeconfig), and who may post (a
// bearer token per server, or client certificates signed by a CA, named by their common name).
import { readFileSync, writeFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import type { AuditWebhookOptions } from '../../engine/audit/webhook/receiver.js';
import { collectWebhookToken, WebhookSenders, type WebhookTokenSpec } from '../../engine/audit/webhook/senders.js';
import { createCertificateAuthority, issueServerCertificate } from '../../engine/tls/certs.js';
import { InputError } from '../../engine/util/input-error.js';
import type { NamedServer } from '../../engine/cluster/display-names.js';
import { readListen } from '../../engine/proxy/port-flags.js';
import { commanderParser } from './port-options.js';
import { errnoWords } from '../../engine/util/errno.js';

export interface AuditWebhookFlags {
  auditWebhookListen?: { host: string; port: number };
  auditWebhookCert?: string;
  auditWebhookKey?: string;
  auditWebhookCaOut?: string;
  auditWebhookToken: WebhookTokenSpec[];
  auditWebhookClientCa?: string;
}

/**
 * The receiver's flags; `counted` ends the listen flag's help with what the command does with the
 * events (serve counts them in its metrics, report in its report).
 */
export function addAuditWebhookOptions(command: Command, counted: string): Command {
  return command
    .option(
      '--audit-webhook-listen <host:port>',
      `receive the servers' audit events (kube-apiserver --audit-webhook-config-file) on this TLS listener${counted}`,
      commanderParser({ read: readListen }),
    )
    .option('--audit-webhook-cert <file>', "the receiver's PEM serving certificate (default: one Peerscope generates)")
    .option('--audit-webhook-key <file>', 'its PEM private key')
    .option(
      '--audit-webhook-ca-out <file>',
      'without --audit-webhook-cert: write the CA of the generated certificate here (for the webhook kubeconfig)',
    )
    .option(
      '--audit-webhook-token <server=file>',
      'a server may post with the bearer token in FILE and is named SERVER (repeat for each)',
      (value: string, previous: WebhookTokenSpec[]) => {
        try {
          return collectWebhookToken(value, previous);
        } catch (err) {
          throw new InvalidArgumentError((err as Error).message);
        }
      },
      [],
    )
    .option('--audit-webhook-client-ca <file>', 'a server may post with a client certificate this CA signed, named by its common name');
}

/** The receiver's settings, or undefined without --audit-webhook-listen; throws an InputError naming the flag at fault. */
export async function auditWebhookOf(
  flags: AuditWebhookFlags,
  servers: () => readonly NamedServer[] = () => [],
): Promise<Omit<AuditWebhookOptions, 'onRecord'> | undefined> {
  const listen = flags.auditWebhookListen;
  if (!listen) return undefined;
  const read = (flag: string, file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new InputError(`${flag} ${file}`, `cannot read: ${errnoWords(err)}`);
    }
  };
  if (flags.auditWebhookToken.length === 0 && !flags.auditWebhookClientCa)
    throw new InputError(
      '--audit-webhook-listen',
      'nobody could post; give --audit-webhook-token SERVER=FILE or --audit-webhook-client-ca FILE',
    );
  if (Boolean(flags.auditWebhookCert) !== Boolean(flags.auditWebhookKey))
    throw new InputError('--audit-webhook-cert', 'goes with --audit-webhook-key; give both, or neither');
  let cert: string;
  let key: string;
  if (flags.auditWebhookCert && flags.auditWebhookKey) {
    cert = read('--audit-webhook-cert', flags.auditWebhookCert);
    key = read('--audit-webhook-key', flags.auditWebhookKey);
  } else {
    if (!flags.auditWebhookCaOut)
      throw new InputError(
        '--audit-webhook-listen',
        'needs a certificate; give --audit-webhook-cert and --audit-webhook-key, or --audit-webhook-ca-out FILE to write the CA of a generated certificate to',
      );
    const ca = await createCertificateAuthority('peerscope-audit-webhook-ca');
    const hosts = [...new Set([listen.host, '127.0.0.1', 'localhost'])].filter((h) => h !== '0.0.0.0' && h !== '::');
    ({ cert, key } = await issueServerCertificate(ca, { commonName: 'peerscope-audit-webhook', hosts }));
    writeFileSync(flags.auditWebhookCaOut, ca.cert);
  }
  return {
    host: listen.host,
    port: listen.port,
    cert,
    key,
    ...(flags.auditWebhookClientCa ? { clientCa: read('--audit-webhook-client-ca', flags.auditWebhookClientCa) } : {}),
    senders: new WebhookSenders(flags.auditWebhookToken, servers),
  };
}

/** How often a problem already told is told again, with its count so far. */
export const PROBLEM_RETOLD_EVERY = 1000;

/**
 * The receiver's problems on standard error: the first of each sender and reason with its detail, then
 * every PROBLEM_RETOLD_EVERY-th with the count, so a sender that keeps failing cannot flood the log
 * (every one is counted in /.peerscope/metrics all the same).
 */
export function webhookProblemLog(write: (line: string) => void): NonNullable<AuditWebhookOptions['onProblem']> {
  const seen = new Map<string, number>();
  return (sender, reason, detail) => {
    const key = `${sender}\u0000${reason}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n === 1) write(`peerscope: audit webhook: ${sender}: ${reason}: ${detail}\n`);
    else if (n % PROBLEM_RETOLD_EVERY === 0)
      write(`peerscope: audit webhook: ${sender}: ${reason}: ${n} so far (the latest: ${detail}; all counted in /.peerscope/metrics)\n`);
  };
}
