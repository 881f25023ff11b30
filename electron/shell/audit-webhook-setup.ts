// The desktop app's "Receive audit events…": everything the operator needs to point each apiserver's
// --audit-webhook-config-file at Peerscope, made in one go. A bearer token per server (random, written
// 0600), the receiver's serving certificate (generated, its CA written for the servers to verify it;
// or the operator's own), and one webhook kubeconfig per server naming the receiver, that CA and the
// server's token, the CA inline so the file can be copied to the server's machine as it is. The
// receiver then names each sender by its token (proxy-core's WebhookSenders).
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import {
  createCertificateAuthority,
  issueServerCertificate,
  WebhookSenders,
  type AuditWebhookOptions,
} from '../../proxy-core/hosts/index.js';

export interface WebhookSetupRequest {
  /** 127.0.0.1 (servers on this machine), or 0.0.0.0 (every interface: servers on other machines). */
  readonly host: string;
  readonly port: number;
  /** The operator's PEM serving certificate and key files; absent: Peerscope generates one. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  /** The servers that may post: `name` (identity) names the sender, `displayName` names its files. */
  readonly servers: readonly { readonly name: string; readonly displayName?: string }[];
  /** Where the tokens, the CA and the webhook kubeconfigs are written. */
  readonly folder: string;
}

export interface WebhookSetup {
  readonly options: Omit<AuditWebhookOptions, 'onRecord'>;
  /** The URL the servers post to (written into each kubeconfig). */
  readonly url: string;
  /** Per server: its webhook kubeconfig (for --audit-webhook-config-file). */
  readonly kubeconfigs: readonly { readonly server: string; readonly file: string }[];
  /** Every file written, for the operator to see. */
  readonly written: readonly string[];
}

/** An address the servers can reach this machine at: the host itself, or for every interface, the first external IPv4. */
export function reachableAddress(host: string, interfaces = networkInterfaces()): string {
  if (host !== '0.0.0.0' && host !== '::') return host;
  for (const list of Object.values(interfaces)) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '127.0.0.1';
}

/** A file name from a server's name: letters, digits, dot, dash and underscore. */
function fileSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

export async function prepareWebhookSetup(request: WebhookSetupRequest): Promise<WebhookSetup> {
  if (request.servers.length === 0) throw new Error('no apiserver is known to post audit events');
  const written: string[] = [];
  const write = (name: string, text: string, mode = 0o600) => {
    const file = join(request.folder, name);
    writeFileSync(file, text, { mode });
    written.push(file);
    return file;
  };
  const address = reachableAddress(request.host);
  const url = `https://${address.includes(':') ? `[${address}]` : address}:${request.port}/`;
  let cert: string;
  let key: string;
  let caPem: string | undefined;
  if (request.tls) {
    cert = readFileSync(request.tls.certFile, 'utf8');
    key = readFileSync(request.tls.keyFile, 'utf8');
  } else {
    const ca = await createCertificateAuthority('peerscope-audit-webhook-ca');
    const hosts = [...new Set([address, '127.0.0.1', 'localhost'])];
    ({ cert, key } = await issueServerCertificate(ca, { commonName: 'peerscope-audit-webhook', hosts }));
    caPem = ca.cert;
    write('audit-webhook-ca.crt', ca.cert, 0o644);
  }
  const tokens: { server: string; file: string }[] = [];
  const kubeconfigs: { server: string; file: string }[] = [];
  for (const s of request.servers) {
    const base = fileSafe(s.displayName ?? s.name);
    const token = randomBytes(24).toString('hex');
    tokens.push({ server: s.name, file: write(`${base}-audit-webhook.token`, `${token}\n`) });
    // The CA inline: the file is whole on another machine. The operator's own certificate is verified
    // as the server's system trusts it (no CA written).
    const cluster = caPem
      ? `{server: "${url}", certificate-authority-data: ${Buffer.from(caPem).toString('base64')}}`
      : `{server: "${url}"}`;
    const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: peerscope
  cluster: ${cluster}
users:
- name: ${JSON.stringify(s.name)}
  user: {token: ${token}}
contexts:
- name: webhook
  context: {cluster: peerscope, user: ${JSON.stringify(s.name)}}
current-context: webhook
`;
    kubeconfigs.push({ server: s.name, file: write(`${base}-audit-webhook.kubeconfig`, kubeconfig) });
  }
  return {
    options: { host: request.host, port: request.port, cert, key, senders: new WebhookSenders(tokens) },
    url,
    kubeconfigs,
    written,
  };
}
