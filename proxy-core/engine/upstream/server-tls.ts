// The TLS settings of every connection to one apiserver, its CA and client certificate parsed once.
// tls.connect given `ca`, `cert` and `key` builds a new secure context on each connect and parses them
// again (0.1–0.8 ms: a CA alone on Node 24 to a CA and an RSA client key on Node 20), and readiness
// probes connect afresh every time.
import { createSecureContext, type SecureContext } from 'node:tls';

/** What a server's TLS is configured from (cluster/server-config.ts describes each field). */
export interface ServerTlsSource {
  readonly ca?: string;
  readonly servername?: string;
  readonly clientCert?: { readonly cert: string; readonly key: string };
}

/** The TLS options of a connection to an apiserver; verification is never switched off. */
export type UpstreamTls = { readonly servername?: string } & (
  { readonly secureContext: SecureContext } | { readonly ca?: string; readonly cert?: string; readonly key?: string }
);

/**
 * One server's TLS options; without a CA, Node's root certificates are trusted. A certificate or key
 * that does not parse (a kubeconfig's or a plugin's is refused earlier, cluster/pem.ts) is passed on
 * as it is, so that each connect fails with OpenSSL's reason, as every other TLS failure does.
 */
export function serverTls(server: ServerTlsSource): UpstreamTls {
  const material = {
    ...(server.ca ? { ca: server.ca } : {}),
    ...(server.clientCert ? { cert: server.clientCert.cert, key: server.clientCert.key } : {}),
  };
  const name = server.servername ? { servername: server.servername } : {};
  try {
    return { ...name, secureContext: createSecureContext(material) };
  } catch {
    return { ...name, ...material };
  }
}
