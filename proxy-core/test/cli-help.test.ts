// `--help` of every command shows each default as a user would type it: the built CLI, run for real.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const repoRoot = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

async function help(...command: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['bin/peerscope', ...command, '--help'], { cwd: repoRoot });
  // Commander wraps long lines: read each option's text as one line.
  return stdout.replace(/\n\s{10,}/g, ' ');
}

describe('peerscope --help', () => {
  it.each(['serve', 'demo', 'sim', 'servers', 'audit', 'snapshot save', 'snapshot diff', 'snapshot show', 'catalog list'])(
    '%s shows no default as JSON',
    async (command) => {
      const text = await help(...command.split(' '));
      // An alias shows beside its command's name (`servers|peers`).
      expect(text).toMatch(new RegExp(`Usage: peerscope ${command}[ |]`));
      expect(text).not.toMatch(/default: [[{"]|default: (true|false)\b/);
    },
  );

  it('shows the listen address, the policy and the releases as typed', async () => {
    const demo = await help('demo');
    expect(demo).toMatch(/--listen <host:port>\s+where the local port listens \(default: 127\.0\.0\.1:8001\)/);
    expect(demo).toMatch(
      /--policy <policy>\s+which server a load balancer would hand each request to: round-robin, random or pin:NAME \(default: round-robin\)/,
    );
    expect(demo).toMatch(/--from <release>\s+release the servers start at \(default: v1\.36-dev\)/);
    const serve = await help('serve');
    expect(serve).toMatch(/\(default: 127\.0\.0\.1:8001\)/);
    expect(serve).toMatch(/--discovery <mode>.*\(default: peer-aggregated\)/);
  });

  it('names the environment variable serve reads, and refuses a value it cannot use in one line with exit 2', async () => {
    expect(await help('serve')).toMatch(/Environment:\s+PEERSCOPE_HEAP_GROWING_PERCENT .*\(default 300; 0 = V8's own heuristic\)/);
    const bad = await run(process.execPath, ['bin/peerscope', 'serve', '--help'], {
      cwd: repoRoot,
      env: { ...process.env, PEERSCOPE_HEAP_GROWING_PERCENT: 'lots' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('peerscope: PEERSCOPE_HEAP_GROWING_PERCENT: "lots" is not a whole number from 0 to 1000\n');
  });

  it('--server-refresh is the flag; --peer-refresh, its old name, is still accepted and said to be renamed', async () => {
    const serve = await help('serve');
    expect(serve).toMatch(/--server-refresh <seconds>\s+with --kubeconfig: find the apiservers again this often .*\(default: 30\)/);
    expect(serve).toMatch(/--peer-refresh <seconds>\s+renamed --server-refresh \(the old name still works\)/);
    const serveWith = (...flags: string[]) =>
      run(process.execPath, ['bin/peerscope', 'serve', '--server', 'a=http://127.0.0.1:1', '--listen', '127.0.0.1:0', ...flags], {
        cwd: repoRoot,
      }).then(
        () => ({ code: 0, stderr: '' }),
        (err: { code: number; stderr: string }) => err,
      );
    // The old name alone is read (a pin to no server then stops serve before it listens, exit 2).
    const old = await serveWith('--peer-refresh', '5', '--policy', 'pin:nobody');
    expect(old.code).toBe(2);
    expect(old.stderr).toBe(
      'peerscope: --peer-refresh is renamed --server-refresh; the old name still works\n' +
        'peerscope: --policy pin:nobody: no server is named "nobody"; pin one of a\n',
    );
    const both = await serveWith('--peer-refresh', '5', '--server-refresh', '5');
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('peerscope: --peer-refresh is the old name of --server-refresh; give --server-refresh only\n');
  });

  it('servers is the command; peers, its old name, still works and is said to be renamed', async () => {
    expect(await help('servers')).toMatch(/Usage: peerscope servers\|peers .*renamed from peers \(the old name still works\)/s);
    const dir = mkdtempSync(join(tmpdir(), 'servers-alias-'));
    const kubeconfig = join(dir, 'config');
    writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    const list = (command: string) =>
      run(process.execPath, ['bin/peerscope', command, '--kubeconfig', kubeconfig], { cwd: repoRoot }).then(
        () => ({ code: 0, stderr: '' }),
        (err: { code: number; stderr: string }) => err,
      );
    // A kubeconfig with no context stops either name the same way, after the old name's note.
    const refusal = `peerscope: ${kubeconfig}: no context: the kubeconfig sets no current-context; pass --context NAME\n`;
    const now = await list('servers');
    expect(now).toMatchObject({ code: 2, stderr: refusal });
    const old = await list('peers');
    expect(old).toMatchObject({ code: 2, stderr: 'peerscope: peers is renamed servers; the old name still works\n' + refusal });
  });
});
