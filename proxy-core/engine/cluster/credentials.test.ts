import { chmodSync, mkdtempSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCertificateAuthority, issueClientCertificate } from '../tls/certs.js';
import { CredentialError, ExecCredentialSource, tokenFileSource } from './credentials.js';

function plugin(dir: string, body: string): string {
  const file = join(dir, 'plugin.sh');
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('token files', () => {
  it('are re-read when they change (rotation)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cred-'));
    const file = join(dir, 'token');
    writeFileSync(file, 'first\n');
    const source = tokenFileSource(file, { recheckMs: 0 });
    expect(source.token()).toBe('first');
    writeFileSync(file, 'second\n');
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(source.token()).toBe('second');
  });

  it('are checked at most once per recheck period, and at once after a 401', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cred-'));
    const file = join(dir, 'token');
    writeFileSync(file, 'first\n');
    const source = tokenFileSource(file, { recheckMs: 60_000 });
    writeFileSync(file, 'second\n');
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(source.token()).toBe('first');
    source.unauthorized();
    expect(source.token()).toBe('second');
  });

  it('a missing token file is an error naming it', () => {
    expect(() => tokenFileSource('/nonexistent/token')).toThrow('tokenFile /nonexistent/token: cannot read a token');
  });
});

describe('exec credential plugins', () => {
  it('runs the plugin with args, env and KUBERNETES_EXEC_INFO, caches the token until it expires', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cred-'));
    const counter = join(dir, 'count');
    writeFileSync(counter, '');
    const cmd = plugin(
      dir,
      `echo x >> ${counter}
n=$(wc -l < ${counter} | tr -d ' ')
case "$KUBERNETES_EXEC_INFO" in *'"interactive":false'*) ;; *) exit 3;; esac
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s-%s-%s","expirationTimestamp":"%s"}}' "$1" "$TEAM" "$n" "$EXPIRES"`,
    );
    let now = Date.parse('2026-11-23T08:00:00Z');
    const source = new ExecCredentialSource(
      {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: cmd,
        args: ['tok'],
        env: [
          { name: 'TEAM', value: 'sre' },
          { name: 'EXPIRES', value: '2026-11-23T09:00:00Z' },
        ],
      },
      { env: {}, server: 'https://x', path: '/usr/bin:/bin', now: () => now },
    );
    await source.refresh();
    expect(source.token()).toBe('tok-sre-1');
    expect(source.token()).toBe('tok-sre-1'); // cached
    now = Date.parse('2026-11-23T09:00:00Z'); // expired: the next read starts a refresh
    source.token();
    await source.refresh();
    expect(source.token()).toBe('tok-sre-2');
    source.unauthorized(); // a 401: fetch again
    await source.refresh();
    expect(source.token()).toBe('tok-sre-3');
  });

  it('a missing binary is named, with the install hint', async () => {
    const source = new ExecCredentialSource(
      { apiVersion: 'client.authentication.k8s.io/v1beta1', command: 'kubelogin-missing', installHint: 'install kubelogin' },
      { env: {}, server: 'https://x', path: '/nonexistent' },
    );
    await expect(source.refresh()).rejects.toThrow('exec plugin "kubelogin-missing" was not found in PATH: install kubelogin');
  });

  it('a plugin that prints garbage or the wrong apiVersion is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cred-'));
    const garbage = new ExecCredentialSource(
      { apiVersion: 'client.authentication.k8s.io/v1', command: plugin(dir, 'echo hello') },
      { env: {}, server: 'https://x', path: '/usr/bin:/bin' },
    );
    await expect(garbage.refresh()).rejects.toThrow('is not an ExecCredential JSON');
    const dir2 = mkdtempSync(join(tmpdir(), 'cred-'));
    const wrong = new ExecCredentialSource(
      {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: plugin(
          dir2,
          `echo '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t"}}'`,
        ),
      },
      { env: {}, server: 'https://x', path: '/usr/bin:/bin' },
    );
    await expect(wrong.refresh()).rejects.toThrow('expected ExecCredential client.authentication.k8s.io/v1');
  });

  it('a client certificate and key that do not parse, or do not belong together, are refused naming the field', async () => {
    const ca = await createCertificateAuthority('exec-plugin-test-ca');
    const [mine, other] = await Promise.all([
      issueClientCertificate(ca, { commonName: 'operator' }),
      issueClientCertificate(ca, { commonName: 'someone-else' }),
    ]);
    const answer = async (status: object) => {
      const dir = mkdtempSync(join(tmpdir(), 'cred-'));
      writeFileSync(
        join(dir, 'credential.json'),
        JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status }),
      );
      const source = new ExecCredentialSource(
        { apiVersion: 'client.authentication.k8s.io/v1', command: '/bin/cat', args: [join(dir, 'credential.json')] },
        { env: {}, server: 'https://x', path: '/usr/bin:/bin' },
      );
      await source.refresh();
      return source.clientCert();
    };
    await expect(answer({ clientCertificateData: 'CERT', clientKeyData: mine.key })).rejects.toThrow(
      /exec plugin "\/bin\/cat" returned a clientCertificateData that is not a PEM certificate \(.+\)/,
    );
    await expect(answer({ clientCertificateData: mine.cert, clientKeyData: 'KEY' })).rejects.toThrow(
      /returned a clientKeyData that is not a PEM private key \(.+\)/,
    );
    await expect(answer({ clientCertificateData: mine.cert, clientKeyData: other.key })).rejects.toThrow(
      'returned a clientKeyData that does not belong to the client certificate (another public key)',
    );
    expect(await answer({ clientCertificateData: mine.cert, clientKeyData: mine.key })).toEqual({ cert: mine.cert, key: mine.key });
  });

  it('interactiveMode Always is refused up front', () => {
    expect(
      () =>
        new ExecCredentialSource(
          { apiVersion: 'client.authentication.k8s.io/v1', command: 'x', interactiveMode: 'Always' },
          { env: {}, server: 'https://x' },
        ),
    ).toThrow(CredentialError);
  });
});
