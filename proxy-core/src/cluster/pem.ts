// A CA bundle, client certificate and client key, checked where they are read (a kubeconfig, an exec
// plugin's answer), as kubectl does: material that does not parse is named with the field it came
// from, rather than failing every connect to every server with an OpenSSL reason.
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Why `text` is not a usable CA bundle (no certificate in it parses), or undefined. */
export function caBundleProblem(text: string): string | undefined {
  const blocks = text.match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) return 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)';
  // Like Go's CertPool.AppendCertsFromPEM: a bundle is usable when one of its certificates parses.
  const reasons: string[] = [];
  for (const block of blocks) {
    const problem = certificateProblem(block);
    if (!problem) return undefined;
    reasons.push(problem);
  }
  return blocks.length === 1 ? String(reasons[0]) : `holds ${blocks.length} PEM certificates and none parses (${reasons[0]})`;
}

/** What is wrong with a client certificate and its key, and which of the two is at fault. */
export function keyPairProblem(cert: string, key: string): { readonly in: 'cert' | 'key'; readonly problem: string } | undefined {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (err) {
    return { in: 'cert', problem: `is not a PEM certificate (${reason(err)})` };
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    return { in: 'key', problem: `is not a PEM private key (${reason(err)})` };
  }
  if (!certificate.checkPrivateKey(privateKey))
    return { in: 'key', problem: 'does not belong to the client certificate (another public key)' };
  return undefined;
}

function certificateProblem(block: string): string | undefined {
  try {
    new X509Certificate(block);
    return undefined;
  } catch (err) {
    return `holds a PEM certificate that does not parse (${reason(err)})`;
  }
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
