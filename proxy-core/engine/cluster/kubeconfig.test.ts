import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority, issueClientCertificate } from '../tls/certs.js';
import { InputError } from '../util/input-error.js';
import { kubeconfigFiles, loadKubeconfig } from './kubeconfig.js';

function dir() {
  return mkdtempSync(join(tmpdir(), 'kubeconfig-'));
}

function write(d: string, name: string, text: string): string {
  const file = join(d, name);
  writeFileSync(file, text);
  return file;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Real PEM material: a CA, a client certificate and its key, and the key of another certificate. */
const pem = { ca: '', cert: '', key: '', otherKey: '' };
beforeAll(async () => {
  const ca = await createCertificateAuthority('kubeconfig-test-ca');
  const client = await issueClientCertificate(ca, { commonName: 'admin' });
  const other = await issueClientCertificate(ca, { commonName: 'someone-else' });
  Object.assign(pem, { ca: ca.cert, cert: client.cert, key: client.key, otherKey: other.key });
});

const basic = (server = 'https://10.0.0.1:6443') => `apiVersion: v1
kind: Config
current-context: prod
clusters:
- name: prod-cluster
  cluster:
    server: ${server}
    certificate-authority-data: ${b64(pem.ca)}
    tls-server-name: kubernetes.default.svc
contexts:
- name: prod
  context:
    cluster: prod-cluster
    user: admin
    namespace: kube-system
users:
- name: admin
  user:
    token: secret-token
`;

function errorOf(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('expected an InputError');
}

describe('kubeconfig loading, like kubectl', () => {
  it('resolves the current context: server, CA, TLS server name, token, namespace', () => {
    const file = write(dir(), 'config', basic());
    const k = loadKubeconfig({ kubeconfig: file });
    expect(k).toMatchObject({
      contextName: 'prod',
      clusterName: 'prod-cluster',
      userName: 'admin',
      namespace: 'kube-system',
      server: 'https://10.0.0.1:6443',
      tls: { ca: pem.ca, servername: 'kubernetes.default.svc', insecureSkipVerify: false },
      credential: { kind: 'token', token: 'secret-token' },
    });
  });

  it('KUBECONFIG is a path list: the first file to define a name or current-context wins; missing files are skipped', () => {
    const d = dir();
    const first = write(
      d,
      'a',
      `current-context: dev\ncontexts:\n- name: dev\n  context: {cluster: dev, user: dev}\nclusters:\n- name: dev\n  cluster: {server: "https://dev:6443"}\n`,
    );
    const second = write(
      d,
      'b',
      basic().replace('current-context: prod', 'current-context: prod') + `- name: dev\n  user:\n    tokenFile: ./dev-token\n`,
    );
    const files = kubeconfigFiles({ env: { KUBECONFIG: [first, join(d, 'missing'), second].join(delimiter) } });
    expect(files).toEqual([first, join(d, 'missing'), second]);
    const k = loadKubeconfig({ env: { KUBECONFIG: files.join(delimiter) } });
    expect(k.contextName).toBe('dev');
    expect(k.server).toBe('https://dev:6443');
    expect(k.credential).toEqual({ kind: 'tokenFile', path: join(d, 'dev-token') });
    expect(loadKubeconfig({ env: { KUBECONFIG: files.join(delimiter) }, context: 'prod' }).server).toBe('https://10.0.0.1:6443');
  });

  it('defaults to ~/.kube/config', () => {
    expect(kubeconfigFiles({ env: {}, home: '/home/op' })).toEqual(['/home/op/.kube/config']);
  });

  it('reads certificate files relative to the kubeconfig', () => {
    const d = dir();
    write(d, 'ca.crt', pem.ca);
    write(d, 'client.crt', pem.cert);
    write(d, 'client.key', pem.key);
    const file = write(
      d,
      'config',
      basic()
        .replace(/certificate-authority-data: .*/, 'certificate-authority: ca.crt')
        .replace('token: secret-token', 'client-certificate: client.crt\n    client-key: client.key'),
    );
    const k = loadKubeconfig({ kubeconfig: file });
    expect(k.tls.ca).toBe(pem.ca);
    expect(k.clientCert).toEqual({ cert: pem.cert, key: pem.key });
  });

  it('insecure-skip-tls-verify is honoured only when set', () => {
    const file = write(dir(), 'config', basic().replace('tls-server-name: kubernetes.default.svc', 'insecure-skip-tls-verify: true'));
    expect(loadKubeconfig({ kubeconfig: file }).tls.insecureSkipVerify).toBe(true);
  });

  describe('every broken kubeconfig gets an error naming the file and the line or field', () => {
    it('a YAML syntax error: line and column', () => {
      const file = write(dir(), 'config', 'clusters:\n- name: x\n  cluster: [\n');
      const e = errorOf(() => loadKubeconfig({ kubeconfig: file }));
      expect(e.file).toBe(file);
      expect(e.where.line).toBeGreaterThan(0);
      expect(e.message).toContain('not valid YAML');
    });

    it('a missing context lists the known ones', () => {
      const file = write(dir(), 'config', basic());
      expect(errorOf(() => loadKubeconfig({ kubeconfig: file, context: 'stage' })).message).toBe(
        '--context: context "stage" is not defined; the kubeconfig has prod',
      );
    });

    it('a cluster without server names its line', () => {
      const file = write(dir(), 'config', basic().replace('    server: https://10.0.0.1:6443\n', ''));
      const e = errorOf(() => loadKubeconfig({ kubeconfig: file }));
      expect(e.message).toContain('a cluster needs a server');
      expect(e.where.line).toBe(7); // the first line of that cluster's fields
    });

    it('an unreadable certificate-authority names the file and line', () => {
      const file = write(dir(), 'config', basic().replace(/certificate-authority-data: .*/, 'certificate-authority: /nonexistent/ca.crt'));
      const e = errorOf(() => loadKubeconfig({ kubeconfig: file }));
      expect(e.message).toContain('certificate-authority /nonexistent/ca.crt: cannot read: no such file or directory (ENOENT)');
      expect(e.where.line).toBe(8);
    });

    it('malformed base64 data names the field', () => {
      const file = write(
        dir(),
        'config',
        basic().replace(/certificate-authority-data: .*/, 'certificate-authority-data: "@@not base64@@"'),
      );
      const e = errorOf(() => loadKubeconfig({ kubeconfig: file }));
      expect(e.message).toContain('certificate-authority-data is not valid base64');
      expect(e.where.line).toBe(8);
    });

    it('a CA that holds no certificate, or only one that does not parse: the cluster and field, as kubectl refuses it', () => {
      const d = dir();
      const none = errorOf(() =>
        loadKubeconfig({
          kubeconfig: write(d, 'none', basic().replace(/certificate-authority-data: .*/, `certificate-authority-data: ${b64('CA PEM')}`)),
        }),
      );
      expect(none.message).toContain('cluster "prod-cluster": certificate-authority-data holds no PEM certificate');
      expect(none.where.line).toBe(8);
      write(d, 'ca.crt', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
      const broken = errorOf(() =>
        loadKubeconfig({
          kubeconfig: write(d, 'broken', basic().replace(/certificate-authority-data: .*/, 'certificate-authority: ca.crt')),
        }),
      );
      expect(broken.message).toMatch(/cluster "prod-cluster": certificate-authority holds a PEM certificate that does not parse \(.+\)/);
      expect(broken.where.line).toBe(8);
      // A bundle with one certificate that parses is usable, as Go's CertPool takes it.
      const bundle = `-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n${pem.ca}`;
      const ok = write(d, 'bundle', basic().replace(/certificate-authority-data: .*/, `certificate-authority-data: ${b64(bundle)}`));
      expect(loadKubeconfig({ kubeconfig: ok }).tls.ca).toBe(bundle);
    });

    it('a client certificate or key that does not parse, or a key of another certificate: the user and field', () => {
      const d = dir();
      const userWith = (fields: string) => basic().replace('token: secret-token', fields);
      const cases = [
        [
          `client-certificate-data: ${b64('CERT')}\n    client-key-data: ${b64(pem.key)}`,
          /user "admin": client-certificate-data is not a PEM certificate \(.+\)/,
        ],
        [
          `client-certificate-data: ${b64(pem.cert)}\n    client-key-data: ${b64('KEY')}`,
          /user "admin": client-key-data is not a PEM private key \(.+\)/,
        ],
        [
          `client-certificate-data: ${b64(pem.cert)}\n    client-key-data: ${b64(pem.otherKey)}`,
          /user "admin": client-key-data does not belong to the client certificate \(another public key\)/,
        ],
      ] as const;
      for (const [i, [fields, message]] of cases.entries()) {
        const file = write(d, `config-${i}`, userWith(fields));
        const e = errorOf(() => loadKubeconfig({ kubeconfig: file }));
        expect(e.file).toBe(file);
        expect(e.message).toMatch(message);
        expect(e.where.line).toBe(i === 0 ? 19 : 20);
      }
    });

    it('a context naming an undefined cluster or user', () => {
      const file = write(dir(), 'config', basic().replace('cluster: prod-cluster', 'cluster: nowhere'));
      expect(errorOf(() => loadKubeconfig({ kubeconfig: file })).message).toMatch(
        /context "prod" names cluster "nowhere", which is not defined/,
      );
      const file2 = write(dir(), 'config', basic().replace('user: admin', 'user: ghost'));
      expect(errorOf(() => loadKubeconfig({ kubeconfig: file2 })).message).toMatch(/names user "ghost", which is not defined/);
    });

    it('auth-provider is refused with a hint to use exec', () => {
      const file = write(dir(), 'config', basic().replace('token: secret-token', 'auth-provider:\n      name: gcp'));
      expect(errorOf(() => loadKubeconfig({ kubeconfig: file })).message).toContain(
        'uses auth-provider "gcp", which Peerscope does not support',
      );
    });

    it('a SOCKS or malformed proxy-url names its line, without the proxy credentials', () => {
      const socks = write(
        dir(),
        'config',
        basic().replace(
          '    tls-server-name: kubernetes.default.svc\n',
          '    tls-server-name: kubernetes.default.svc\n    proxy-url: socks5://ops:hunter2@bastion:1080\n',
        ),
      );
      const e = errorOf(() => loadKubeconfig({ kubeconfig: socks }));
      expect(e.message).toBe(
        `${socks}:10:1: cluster "prod-cluster": proxy-url socks5://***@bastion:1080: SOCKS proxies are not supported by Peerscope; use an http:// or https:// (CONNECT) proxy`,
      );
      const bad = write(
        dir(),
        'config',
        basic().replace(
          '    tls-server-name: kubernetes.default.svc\n',
          '    tls-server-name: kubernetes.default.svc\n    proxy-url: "http://[oops"\n',
        ),
      );
      expect(errorOf(() => loadKubeconfig({ kubeconfig: bad })).message).toContain(
        ':10:1: cluster "prod-cluster": proxy-url "http://[oops" is not a URL',
      );
      const good = write(
        dir(),
        'config',
        basic().replace(
          '    tls-server-name: kubernetes.default.svc\n',
          '    tls-server-name: kubernetes.default.svc\n    proxy-url: http://bastion:3128\n',
        ),
      );
      expect(loadKubeconfig({ kubeconfig: good }).proxyUrl).toBe('http://bastion:3128');
    });

    it('an explicit --kubeconfig that does not exist', () => {
      expect(errorOf(() => loadKubeconfig({ kubeconfig: '/nonexistent/kubeconfig' })).message).toBe(
        '/nonexistent/kubeconfig: cannot read the kubeconfig: no such file or directory (ENOENT)',
      );
    });

    it('no current-context and no --context', () => {
      const file = write(dir(), 'config', basic().replace('current-context: prod\n', ''));
      expect(errorOf(() => loadKubeconfig({ kubeconfig: file })).message).toContain('sets no current-context; pass --context NAME');
    });
  });
});
