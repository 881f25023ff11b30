// The one error style, walked over every command of the built CLI: `--help` answers on standard output
// with exit 0; an unknown flag is one line `peerscope: …; see 'peerscope CMD --help'` with exit 2; each
// row of the table kept beside the commands (hosts/cli/usage-table.ts) gives its exit status and first
// line; and a command's help names no flag it does not have.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { USAGE_TABLE } from '../hosts/cli/usage-table.js';

const repoRoot = join(import.meta.dirname, '..', '..');
/** Flags of kube-apiserver that a help text names to say which server setting it reads. */
const KUBE_APISERVER_FLAGS = new Set(['--audit-webhook-config-file', '--audit-log-path', '--audit-policy-file']);

function peerscope(argv: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/peerscope', ...argv], { cwd: repoRoot, encoding: 'utf8', timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** The commands a help text lists ("  serve [options]  …", "  servers|peers …"), `help` aside. */
function commandsOf(helpText: string): string[] {
  const section = helpText.split('\nCommands:\n')[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)(?:\|[a-z-]+)?(?: \[options\]| <|\s|$)/gm)]
    .map((m) => m[1] as string)
    .filter((name) => name !== 'help');
}

/** Every command path with its --help answer: groups (snapshot, catalog) walked down to their commands. */
async function everyCommand(): Promise<{ path: string[]; help: { code: number; stdout: string } }[]> {
  const out: { path: string[]; help: { code: number; stdout: string } }[] = [];
  const walk = async (path: string[]) => {
    const help = await peerscope([...path, '--help']);
    if (path.length > 0) out.push({ path, help });
    for (const sub of commandsOf(help.stdout)) await walk([...path, sub]);
  };
  await walk([]);
  return out;
}

let walked: Promise<Awaited<ReturnType<typeof everyCommand>>> | undefined;
const commands = () => (walked ??= everyCommand());

/** The flags a command's help declares, and every --flag its texts mention. */
function flagsOf(helpText: string): { declared: Set<string>; mentioned: Set<string> } {
  const options = helpText.split('\nOptions:\n')[1]?.split('\nCommands:\n')[0] ?? '';
  const declared = new Set([...options.matchAll(/^ {2}(?:-\w, )?(--[a-z-]+)/gm)].map((m) => m[1] as string));
  // --no-rollout is declared as itself; its text may say --rollout's meaning.
  for (const flag of [...declared]) if (flag.startsWith('--no-')) declared.add(`--${flag.slice(5)}`);
  // A group's list of commands speaks of its commands' flags: only its own text counts.
  const own = helpText.split('\nCommands:\n')[0] ?? '';
  const mentioned = new Set([...own.matchAll(/(?<![\w-])(--[a-z][a-z-]*)/g)].map((m) => m[1] as string));
  return { declared, mentioned };
}

describe('peerscope: one error style for every command', () => {
  it('every command answers --help with exit 0, and an unknown flag in one line with exit 2', async () => {
    const walk = await commands();
    expect(walk.map((c) => c.path.join(' '))).toEqual(
      expect.arrayContaining(['serve', 'demo', 'sim', 'servers', 'report', 'audit', 'snapshot save', 'catalog list']),
    );
    for (const { path, help } of walk) {
      const name = `peerscope ${path.join(' ')}`;
      expect({ name, code: help.code, first: help.stdout.split('\n')[0] }).toEqual({
        name,
        code: 0,
        first: expect.stringMatching(new RegExp(`^Usage: ${name}[ |]`)),
      });
      const bad = await peerscope([...path, '--bogus']);
      // One line in the one style; a command with a required flag may name that first.
      expect({ name, code: bad.code, stderr: bad.stderr }).toEqual({
        name,
        code: 2,
        stderr: expect.stringMatching(
          new RegExp(`^peerscope: (unknown option '--bogus'|--[a-z-]+ is required: [^\\n]+); see '${name} --help'\\n$`),
        ),
      });
    }
    // Two runs of the CLI per command, on a machine shared with other tests.
  }, 120_000);

  it('every command is in the table kept beside the commands', async () => {
    const walk = await commands();
    const covered = new Set(USAGE_TABLE.flatMap((row) => [row.argv[0], row.argv.slice(0, 2).join(' ')]));
    const missing = walk.map((c) => c.path.join(' ')).filter((c) => !covered.has(c));
    expect(missing, 'commands no row of usage-table.ts runs').toEqual([]);
  }, 120_000);

  it.each(USAGE_TABLE.map((row) => [row.argv.join(' '), row] as const))('peerscope %s', async (_name, row) => {
    const r = await peerscope(row.argv);
    expect({ code: r.code, first: r.stderr.split('\n')[0] }).toEqual({ code: row.exit, first: row.stderr });
    // A usage error is one line and nothing more (a note on a renamed flag may come before it).
    if (row.exit === 2) expect(r.stderr.split('\n').filter((l) => !/ is renamed /.test(l))).toHaveLength(2);
  });

  it("a command's help names only flags the command has (and kube-apiserver's own, said as such)", async () => {
    const foreign: Record<string, string[]> = {};
    for (const { path, help } of await commands()) {
      const { declared, mentioned } = flagsOf(help.stdout);
      const others = [...mentioned].filter((flag) => !declared.has(flag) && !KUBE_APISERVER_FLAGS.has(flag));
      if (others.length > 0) foreign[path.join(' ')] = others;
    }
    expect(foreign).toEqual({});
  }, 120_000);
});
