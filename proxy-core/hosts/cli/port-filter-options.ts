// The local port's filters as command-line flags, the same in every command that hosts the port
// (serve, demo): one option per row of PORT_FILTER_FLAGS (proxy/port-filters.ts, which the desktop
// app reads too). Values are checked when parsed, so a bad pattern is a usage error naming the flag
// and the pattern.
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { PortFilters } from '../../engine/core.js';
import { PORT_FILTER_FLAGS, type PortFilterFlag } from '../../engine/proxy/port-filters.js';

/** What commander leaves for the filter flags: one list per flag. */
export type PortFilterFlags = Record<PortFilterFlag['option'], string[]>;

function items(flag: PortFilterFlag): (value: string, previous: string[]) => string[] {
  // Repeating the flag adds to the list.
  return (value, previous) => {
    try {
      return [...previous, ...flag.read(value)];
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message.replace(/^[a-z-]+: /, ''));
    }
  };
}

export function addPortFilterOptions(command: Command): Command {
  for (const flag of PORT_FILTER_FLAGS) {
    command.addOption(new Option(`--${flag.name} ${flag.value}`, flag.help).argParser(items(flag)).default([], 'none'));
  }
  return command;
}

export function portFilters(flags: PortFilterFlags): PortFilters {
  return {
    acceptHosts: flags.acceptHosts,
    acceptOrigins: flags.acceptOrigins,
    rejectPaths: flags.rejectPaths,
    rejectMethods: flags.rejectMethods,
  };
}
