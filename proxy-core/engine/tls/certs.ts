// Certificates for the simulated cluster and for tests: a CA, serving certificates and client
// certificates, generated with WebCrypto (ECDSA P-256) through @peculiar/x509 — no hand-written
// ASN.1 and no OpenSSL binary. Keys never leave the process that made them.
import { webcrypto } from 'node:crypto';
import type * as X509 from '@peculiar/x509';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

// Loaded on first use: @peculiar/x509 and its ASN.1 schemas add ~10 MiB to a process's RSS, and
// `peerscope serve` never makes a certificate (docs/performance.md, idle RSS).
let library: Promise<typeof X509> | undefined;
function x509lib(): Promise<typeof X509> {
  library ??= import('@peculiar/x509').then((x509) => {
    x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
    return x509;
  });
  return library;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 60 * 60 * 1000;

export interface PemPair {
  /** PEM certificate. */
  readonly cert: string;
  /** PEM PKCS#8 private key. */
  readonly key: string;
}

export interface CertificateAuthority extends PemPair {
  readonly keys: CryptoKeyPair;
  readonly certificate: X509.X509Certificate;
}

function serial(): string {
  // Positive 16-byte serial, as RFC 5280 asks.
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return Buffer.from(bytes).toString('hex');
}

async function keyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  const b64 = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trim();
  return `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`;
}

async function keyPair(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
}

/** A self-signed CA valid for `days` (default 365). */
export async function createCertificateAuthority(commonName = 'peerscope-sim-ca', days = 365): Promise<CertificateAuthority> {
  const x509 = await x509lib();
  const keys = await keyPair();
  const now = Date.now();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${commonName}`,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + days * DAY),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { keys, certificate, cert: certificate.toString('pem') + '\n', key: await keyPem(keys.privateKey) };
}

export interface LeafOptions {
  readonly commonName: string;
  /** Subject alternative names: IP addresses and DNS names (serving certificates). */
  readonly hosts?: readonly string[];
  /** Organisations, which Kubernetes reads as the client's groups. */
  readonly organizations?: readonly string[];
  readonly days?: number;
}

async function issue(ca: CertificateAuthority, opts: LeafOptions, usage: 'server' | 'client'): Promise<PemPair> {
  const x509 = await x509lib();
  const keys = await keyPair();
  const now = Date.now();
  const subject = [`CN=${opts.commonName}`, ...(opts.organizations ?? []).map((o) => `O=${o}`)].join(', ');
  const extensions: X509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
    await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
  ];
  if (opts.hosts?.length) {
    const names = opts.hosts.map((h) => (/^[\d.]+$|:/.test(h) ? { type: 'ip' as const, value: h } : { type: 'dns' as const, value: h }));
    extensions.push(new x509.SubjectAlternativeNameExtension(names));
  }
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject,
    issuer: ca.certificate.subject,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + (opts.days ?? 365) * DAY),
    signingKey: ca.keys.privateKey,
    publicKey: keys.publicKey,
    signingAlgorithm: ALG,
    extensions,
  });
  return { cert: certificate.toString('pem') + '\n', key: await keyPem(keys.privateKey) };
}

/** A serving certificate for `hosts` (default 127.0.0.1, ::1, localhost and kubernetes.default.svc). */
export function issueServerCertificate(ca: CertificateAuthority, opts: Partial<LeafOptions> = {}): Promise<PemPair> {
  const hosts = opts.hosts ?? ['127.0.0.1', '::1', 'localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'];
  return issue(ca, { commonName: opts.commonName ?? 'kube-apiserver', hosts, days: opts.days ?? 365 }, 'server');
}

/** A client certificate: CN is the user name, O the groups (as kube-apiserver reads them). */
export function issueClientCertificate(ca: CertificateAuthority, opts: LeafOptions): Promise<PemPair> {
  return issue(ca, opts, 'client');
}
