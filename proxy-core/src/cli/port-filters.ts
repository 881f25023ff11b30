// The local port's request filters as command-line flags, the same in every command that hosts the
// port (serve, demo): --accept-origins, --reject-paths, --reject-methods (kubectl proxy's names).
// Patterns are checked when parsed, so a bad one is a usage error naming the flag and the pattern.
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { PortFilters } from '../core.js';
import { parsePatternList } from '../proxy/patterns.js';

export interface PortFilterFlags {
  acceptOrigins: string[];
  rejectPaths: string[];
  rejectMethods: string[];
}

function patterns(flag: string): (value: string, previous: string[]) => string[] {
  // Repeating the flag adds to the list.
  return (value, previous) => {
    try {
      return [...previous, ...parsePatternList(flag, value)];
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message.replace(/^[a-z-]+: /, ''));
    }
  };
}

export function addPortFilterOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--accept-origins <regexes>',
        'comma-separated regular expressions, each matched against the whole Origin header: browser pages of these origins may use the port (every other request a browser marks as from another site is refused)',
      )
        .argParser(patterns('accept-origins'))
        .default([], 'none'),
    )
    .addOption(
      new Option(
        '--reject-paths <regexes>',
        "comma-separated regular expressions (matched anywhere in the path, as kubectl proxy's): requests to a matching path are refused (kubectl proxy refuses ^/api/.*/pods/.*/exec,^/api/.*/pods/.*/attach by default)",
      )
        .argParser(patterns('reject-paths'))
        .default([], 'none'),
    )
    .addOption(
      new Option(
        '--reject-methods <regexes>',
        'comma-separated regular expressions: requests with a matching method are refused (for example ^POST$,^PUT$,^PATCH$,^DELETE$)',
      )
        .argParser(patterns('reject-methods'))
        .default([], 'none'),
    );
}

export function portFilters(flags: PortFilterFlags): PortFilters {
  return { acceptOrigins: flags.acceptOrigins, rejectPaths: flags.rejectPaths, rejectMethods: flags.rejectMethods };
}
