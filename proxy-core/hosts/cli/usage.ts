// One error style for the whole CLI, as kubectl has one: a usage error is a single line
// `peerscope: <what is wrong>; <what to do>` on standard error and exit status 2. Commander's own
// errors (unknown flag, bad value, missing value) are rewritten to it here, in one place, for every
// command; the commands' own refusals go through fail(). The exit statuses are listed in
// EXIT (and in the README's CLI section).
import type { Command, CommanderError } from 'commander';
import { errnoWords } from '../../engine/util/errno.js';

/** The exit statuses of `peerscope` (README, "Exit statuses"). */
export const EXIT = {
  ok: 0,
  /** Something unexpected: a bug, or a failure no flag can fix. */
  unexpected: 1,
  /** Bad usage or bad input: a flag, a value, a file, an address that cannot be used. */
  usage: 2,
  /** `report` saw no traffic at all (no client, no request): nothing to judge, unless --allow-empty. */
  nothingSeen: 3,
  /** `report --fail-on`: a finding of a kind named there. */
  findings: 4,
  /** A read cancelled by Ctrl-C before its end (128 + SIGINT), after the partial result is printed. */
  cancelled: 130,
} as const;

/** The command whose action runs, for the pointer to its --help. */
let current = 'peerscope';

/** `peerscope snapshot save` for the command given. */
function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** `see 'peerscope serve --help'` for the command that runs. */
export function helpPointer(path = current): string {
  return `see '${path} --help'`;
}

/**
 * Ends with one usage line and exit 2. `message` says what is wrong and, after "; ", what to do;
 * when it names no next step the pointer to the command's --help is that step.
 */
export function fail(message: string, status: number = EXIT.usage): never {
  const line = message.includes('; ') ? message : `${message}; ${helpPointer()}`;
  process.stderr.write(`peerscope: ${line}\n`);
  process.exit(status);
}

/** The port could not start on --listen: an errno in words, any other error as it is. */
export function listenWords(listen: { host: string; port: number }, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code && /^E[A-Z]+$/.test(code)
    ? `--listen ${listen.host}:${listen.port}: cannot listen: ${errnoWords(err)}`
    : err instanceof Error
      ? err.message
      : String(err);
}

/** A file that cannot be read, as fail() words: `--ca ca.pem: cannot read: no such file (ENOENT)`. */
export function failToRead(flag: string, file: string, err: unknown): never {
  return fail(`${flag} ${file}: cannot read: ${errnoWords(err)}`);
}

/**
 * Commander's `error: option '--policy <policy>' argument 'nope' is invalid. …` as the one style:
 * `--policy nope: …; see 'peerscope serve --help'`.
 */
export function usageLine(commanderMessage: string, path: string): string {
  const text = commanderMessage.replace(/^error: /, '').trim();
  const invalid = /^option '(?:-\w, )?(\S+)[^']*' argument '(.*)' is invalid\. (.*)$/s.exec(text);
  let what = text;
  if (invalid) {
    const [, flag, value, reason] = invalid as unknown as [string, string, string, string];
    const choices = /^Allowed choices are (.*)\.$/.exec(reason);
    what = choices ? `${flag} ${value}: use ${orList(choices[1]!)}` : `${flag} ${value}: ${reason.replace(/\.$/, '')}`;
  } else {
    const required = /^required option '(?:-\w, )?(\S+) ([^']*)' not specified$/.exec(text);
    const missing = /^option '(?:-\w, )?(\S+) ([^']*)' argument missing$/.exec(text);
    const excess = /^too many arguments.*Expected (\d+) arguments? but got (\d+)\.$/.exec(text);
    const conflict = /^option '(?:-\w, )?(\S+)[^']*' cannot be used with option '(?:-\w, )?(\S+)[^']*'$/.exec(text);
    if (required) what = `${required[1]} is required: give ${required[1]} ${required[2]!.replace(/[<>]/g, '').toUpperCase()}`;
    else if (excess) what = `too many arguments: expected ${excess[1]}, got ${excess[2]}`;
    else if (conflict) what = `${conflict[1]} cannot be used with ${conflict[2]}: give one of them`;
    else if (missing) what = `${missing[1]} needs a value (${missing[1]} ${missing[2]!.replace(/[<>[\]]/g, '').toUpperCase()})`;
  }
  return `peerscope: ${what}; ${helpPointer(path)}`;
}

function orList(commaList: string): string {
  const items = commaList.split(', ');
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : commaList;
}

/**
 * Sets the one style on `program` and every command under it (call once every command is added):
 * no help after an error, the error as one line, exit 2 (help and --version still exit 0).
 */
export function applyUsageStyle(program: Command): void {
  const walk = (command: Command) => {
    const path = pathOf(command);
    command
      .showHelpAfterError(false)
      .configureOutput({ outputError: (message, write) => write(`${usageLine(message, path)}\n`) })
      .exitOverride((err: CommanderError) => process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage));
    // A group (`snapshot`, `catalog`) run without its command: one line naming the commands.
    if (command.commands.length > 0 && command.parent) {
      const names = command.commands.map((c) => c.name()).join(', ');
      command
        .allowExcessArguments()
        .action((_flags, self: Command) =>
          fail(
            self.args[0]
              ? `unknown command '${self.args[0]}' of ${command.name()} (${names})`
              : `${command.name()} needs a command (${names})`,
          ),
        );
    }
    for (const sub of command.commands) walk(sub);
  };
  walk(program);
  // Hooks of a command's ancestors run for it too: one on the program sees every action.
  program.hook('preAction', (_self, action) => {
    current = pathOf(action);
  });
}
