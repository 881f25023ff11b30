// A CA bundle, client certificate and client key, checked where they are read (a kubeconfig, an exec
// plugin's answer), as kubectl does: material that does not parse is named with the field it came
// from, rather than failing every connect to every server with an OpenSSL reason.
import { X509Certificate, createPrivateKey } from 'node:crypto';

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Why `text` is not a usable CA bundle (no certificate in it parses), or undefined. */
export function caBundleProblem(text: string): string | undefined {
  const blocks = text.match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) return 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)';
  // Like Go's CertPool.AppendCertsFromPEM: a bundle is usable when one of its certificates parses.
  let first: Error | undefined;
  for (const block of blocks) {
    const certificate = parsed(() => new X509Certificate(block));
    if (!(certificate instanceof Error)) return undefined;
    first ??= certificate;
  }
  const one = `holds a PEM certificate that does not parse (${first?.message})`;
  return blocks.length === 1 ? one : `holds ${blocks.length} PEM certificates and none parses (${one})`;
}

/** What is wrong with a client certificate and its key, and which of the two is at fault. */
export function keyPairProblem(cert: string, key: string): { readonly in: 'cert' | 'key'; readonly problem: string } | undefined {
  const certificate = parsed(() => new X509Certificate(cert));
  if (certificate instanceof Error) return { in: 'cert', problem: `is not a PEM certificate (${certificate.message})` };
  const privateKey = parsed(() => createPrivateKey(key));
  if (privateKey instanceof Error) return { in: 'key', problem: `is not a PEM private key (${privateKey.message})` };
  if (!certificate.checkPrivateKey(privateKey))
    return { in: 'key', problem: 'does not belong to the client certificate (another public key)' };
  return undefined;
}

/** What `parse` returns, or the error it threw. */
function parsed<T>(parse: () => T): T | Error {
  try {
    return parse();
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}
