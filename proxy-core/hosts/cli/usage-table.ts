// What each command answers to a bad or an unusual command line: the exit status and the first line
// it writes to standard error. Kept beside the commands, so a changed message changes this table in
// the same commit; proxy-core/test/cli-usage.test.ts runs every row on the built CLI. None of these
// needs a cluster: each stops before reaching one (http://127.0.0.1:1 refuses every connection).

export interface UsageRow {
  readonly argv: readonly string[];
  /** The exit status (usage.ts EXIT). */
  readonly exit: number;
  /** The first line written to standard error. */
  readonly stderr: string;
}

const help = (command: string) => `see 'peerscope ${command} --help'`;

export const USAGE_TABLE: readonly UsageRow[] = [
  { argv: ['bogus'], exit: 2, stderr: "peerscope: unknown command 'bogus'; see 'peerscope --help'" },
  { argv: ['serve', '--bogus'], exit: 2, stderr: `peerscope: unknown option '--bogus'; ${help('serve')}` },
  {
    argv: ['serve', '--policy', 'nope'],
    exit: 2,
    stderr: `peerscope: --policy nope: policy "nope" is not one of round-robin, random, pin:NAME; ${help('serve')}`,
  },
  {
    argv: ['serve', '--listen', 'nope'],
    exit: 2,
    stderr: `peerscope: --listen nope: "nope" is not HOST:PORT (for example 127.0.0.1:8001; port 0 picks a free one); ${help('serve')}`,
  },
  { argv: ['serve', '--server'], exit: 2, stderr: `peerscope: --server needs a value (--server NAME=URL); ${help('serve')}` },
  {
    argv: ['serve', '--server', 'a=http://127.0.0.1:1', '--policy', 'pin:b', '--listen', '127.0.0.1:0'],
    exit: 2,
    stderr: 'peerscope: --policy pin:b: no server is named "b"; pin one of a',
  },
  {
    argv: ['serve', '--kubeconfig', '/nonexistent/config'],
    exit: 2,
    stderr: `peerscope: /nonexistent/config: cannot read the kubeconfig: no such file or directory (ENOENT); ${help('serve')}`,
  },
  { argv: ['demo', '--traffic', '0'], exit: 2, stderr: `peerscope: --traffic 0: "0" is not a positive whole number; ${help('demo')}` },
  {
    argv: ['demo', '--to', 'v9.99', '--listen', '127.0.0.1:0'],
    exit: 2,
    stderr:
      'peerscope: --to v9.99: unknown release "v9.99"; the catalog has v1.36-dev, v1.37-dev (or load your own with --release-file NAME=FILE)',
  },
  {
    argv: ['sim', '--release', 'v1.36-dev', '--servers', '2'],
    exit: 2,
    stderr: `peerscope: --release cannot be used with --servers: give one of them; ${help('sim')}`,
  },
  { argv: ['servers', '--output', 'yaml'], exit: 2, stderr: `peerscope: --output yaml: use text or json; ${help('servers')}` },
  { argv: ['report', '--output', 'yaml'], exit: 2, stderr: `peerscope: --output yaml: use text, json or markdown; ${help('report')}` },
  { argv: ['report', '-o', 'yaml'], exit: 2, stderr: `peerscope: --output yaml: use text, json or markdown; ${help('report')}` },
  {
    argv: ['report', '--from', 'v1.36-dev', '--to', 'v1.37-dev'],
    exit: 2,
    stderr:
      "peerscope: --from v1.36-dev: here --from was the running port's URL (now --port-url), not a release; the current servers' releases are read from the port or --snapshot, the target is --to",
  },
  {
    argv: ['report', '--fail-on', 'removed,bogus'],
    exit: 2,
    stderr: `peerscope: --fail-on removed,bogus: "bogus" is not a finding kind (removed, superseded, skewed, deprecated, target-only); ${help('report')}`,
  },
  {
    argv: ['report', '--port-url', 'http://127.0.0.1:1'],
    exit: 2,
    stderr:
      'peerscope: http://127.0.0.1:1: cannot reach a running Peerscope: connection refused (nothing listens there) (ECONNREFUSED); start `peerscope serve` or `peerscope demo`, or give --port-url URL',
  },
  { argv: ['audit'], exit: 2, stderr: `peerscope: --audit-log is required: give --audit-log [SERVER=]FILE; ${help('audit')}` },
  { argv: ['snapshot'], exit: 2, stderr: `peerscope: snapshot needs a command (save, diff, show); ${help('snapshot')}` },
  {
    argv: ['snapshot', 'save', '--from', 'http://127.0.0.1:1', '--out', '-'],
    exit: 2,
    stderr: 'peerscope: --from is renamed --port-url; the old name still works',
  },
  { argv: ['snapshot', 'save'], exit: 2, stderr: `peerscope: --out is required: give --out FILE; ${help('snapshot save')}` },
  { argv: ['snapshot', 'diff', 'a.json'], exit: 2, stderr: `peerscope: missing required argument 'after'; ${help('snapshot diff')}` },
  {
    argv: ['snapshot', 'show', '/nonexistent/snapshot.json'],
    exit: 2,
    stderr: `peerscope: /nonexistent/snapshot.json: cannot read: no such file or directory (ENOENT); ${help('snapshot show')}`,
  },
  { argv: ['catalog', 'bogus'], exit: 2, stderr: `peerscope: unknown command 'bogus' of catalog (list); ${help('catalog')}` },
  { argv: ['catalog', 'list', '-o', 'yaml'], exit: 2, stderr: `peerscope: --output yaml: use text or json; ${help('catalog list')}` },
  {
    argv: ['snapshot', 'show', 'x.json', '-o', 'yaml'],
    exit: 2,
    stderr: `peerscope: --output yaml: use text or json; ${help('snapshot show')}`,
  },
  {
    argv: ['recording'],
    exit: 2,
    stderr: `peerscope: recording needs a command (list, open, report, export, prune); ${help('recording')}`,
  },
  {
    argv: ['recording', 'list', '/nonexistent'],
    exit: 2,
    stderr: `peerscope: /nonexistent: cannot list the folder: no such file or directory (ENOENT); ${help('recording list')}`,
  },
  {
    argv: ['recording', 'open', '/nonexistent.sqlite'],
    exit: 2,
    stderr: `peerscope: /nonexistent.sqlite: cannot read: no such file or directory (ENOENT); ${help('recording open')}`,
  },
  {
    argv: ['recording', 'prune', '--max-size', 'lots'],
    exit: 2,
    stderr: `peerscope: --max-size lots: "lots" is not a size (for example 5GiB, 500MiB); ${help('recording prune')}`,
  },
  {
    argv: ['recording', 'prune', '--max-age', 'forever'],
    exit: 2,
    stderr: `peerscope: --max-age forever: "forever" is not a duration (for example 14d, 36h, 90m); ${help('recording prune')}`,
  },
  {
    argv: ['recording', 'report', 'x.sqlite', '-o', 'yaml'],
    exit: 2,
    stderr: `peerscope: --output yaml: use markdown, html or json; ${help('recording report')}`,
  },
  { argv: ['catalog', 'list', 'x'], exit: 2, stderr: `peerscope: too many arguments: expected 0, got 1; ${help('catalog list')}` },
  {
    argv: ['snapshot', 'save', '--at', '2026-11-27T14:32:00Z', '--out', 'x.json'],
    exit: 2,
    stderr: 'peerscope: --at goes with --recording; give --recording FILE too, or drop --at',
  },
  {
    argv: ['recording', 'export', 'x.sqlite'],
    exit: 2,
    stderr: `peerscope: --out is required: give --out DIR; ${help('recording export')}`,
  },
  {
    argv: ['recording', 'export', '/nonexistent.sqlite', '--out', '/nonexistent-export'],
    exit: 2,
    stderr: `peerscope: /nonexistent.sqlite: cannot read: no such file or directory (ENOENT); ${help('recording export')}`,
  },
];
