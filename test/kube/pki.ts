// Everything a real control plane's kube-apiservers need to authenticate and be authenticated,
// written to one directory: a cluster CA (serving, client and peer certificates), a front-proxy CA
// with its client certificate (the servers' proxy client: aggregation and the Mixed Version Proxy),
// a service-account key pair, an admin client certificate (system:masters) and a static token file.
// Certificates come from the project's own generator (proxy-core/engine/tls/certs.ts).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCertificateAuthority, issueClientCertificate, issueServerCertificate } from '../../proxy-core/engine/tls/certs.js';

export interface ControlPlanePki {
  readonly dir: string;
  /** PEM of the cluster CA (verifies every server; signs client certificates). */
  readonly caPem: string;
  readonly files: {
    readonly ca: string;
    readonly serving: { readonly cert: string; readonly key: string };
    readonly frontProxyCa: string;
    readonly proxyClient: { readonly cert: string; readonly key: string };
    readonly serviceAccountKey: string;
    readonly serviceAccountPub: string;
    readonly admin: { readonly cert: string; readonly key: string };
    readonly tokens: string;
    /** A CA that signed none of the servers' certificates: kubeconfigs that trust it must be refused. */
    readonly wrongCa: string;
  };
  /** system:masters bearer token (also in the token file). */
  readonly adminToken: string;
  /** A token of a user in no group beyond system:authenticated: RBAC allows it almost nothing. */
  readonly viewerToken: string;
  /** Another serving certificate of the cluster CA (a test's own TLS endpoint, e.g. a recorder). */
  issueServing(hosts: readonly string[]): Promise<{ cert: string; key: string }>;
}

/** The serving certificate names every IP in `ips` and the names peers and clients use (kubernetes.default.svc). */
export async function writePki(dir: string, ips: readonly string[]): Promise<ControlPlanePki> {
  const ca = await createCertificateAuthority('peerscope-kube-test-ca', 2);
  const frontProxy = await createCertificateAuthority('peerscope-kube-test-front-proxy-ca', 2);
  const wrong = await createCertificateAuthority('peerscope-kube-test-unrelated-ca', 2);
  const hosts = [
    ...ips,
    'localhost',
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    'kubernetes.default.svc.cluster.local',
    '10.96.0.1',
  ];
  const [serving, proxyClient, admin] = await Promise.all([
    issueServerCertificate(ca, { commonName: 'kube-apiserver', hosts, days: 2 }),
    issueClientCertificate(frontProxy, { commonName: 'front-proxy-client', days: 2 }),
    issueClientCertificate(ca, { commonName: 'kubernetes-admin', organizations: ['system:masters'], days: 2 }),
  ]);
  const sa = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const adminToken = randomBytes(16).toString('hex');
  const viewerToken = randomBytes(16).toString('hex');
  const file = (name: string, text: string, mode = 0o600) => {
    const path = join(dir, name);
    writeFileSync(path, text, { mode });
    return path;
  };
  return {
    dir,
    caPem: ca.cert,
    adminToken,
    viewerToken,
    issueServing: (more) => issueServerCertificate(ca, { commonName: 'test-endpoint', hosts: [...more], days: 2 }),
    files: {
      ca: file('ca.crt', ca.cert, 0o644),
      serving: { cert: file('apiserver.crt', serving.cert, 0o644), key: file('apiserver.key', serving.key) },
      frontProxyCa: file('front-proxy-ca.crt', frontProxy.cert, 0o644),
      proxyClient: { cert: file('front-proxy-client.crt', proxyClient.cert, 0o644), key: file('front-proxy-client.key', proxyClient.key) },
      serviceAccountKey: file('sa.key', sa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string),
      serviceAccountPub: file('sa.pub', sa.publicKey.export({ type: 'spki', format: 'pem' }) as string, 0o644),
      admin: { cert: file('admin.crt', admin.cert, 0o644), key: file('admin.key', admin.key) },
      // token,user,uid,"group1,group2"
      tokens: file(
        'tokens.csv',
        `${adminToken},token-admin,uid-token-admin,"system:masters"\n${viewerToken},token-viewer,uid-token-viewer\n`,
      ),
      wrongCa: file('wrong-ca.crt', wrong.cert, 0o644),
    },
  };
}
