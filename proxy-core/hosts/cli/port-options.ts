// The local port's settings as commander options, from the one table of them (engine/proxy/port-flags.ts),
// for the commands that host the port (serve, demo). Each text is the table's; --faithful speaks of
// --discovery only where the command has it.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { DISCOVERY_FLAG, FAITHFUL_FLAG, LISTEN_FLAG, POLICY_FLAG, type PortFlag } from '../../engine/proxy/port-flags.js';

/** A table row's reader as a commander parser: its error is a usage error naming the flag and value. */
export function commanderParser<T>(flag: Pick<PortFlag<T>, 'read'>): (value: string) => T {
  return (value) => {
    try {
      return flag.read(value);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  };
}

function valueOption<T>(flag: PortFlag<T>): Option {
  return new Option(`--${flag.name} ${flag.value}`, flag.help)
    .argParser(commanderParser(flag))
    .default(flag.defaultValue, flag.defaultText);
}

/** --listen, --policy, --discovery (with `discovery`) and --faithful, in that order. */
export function addPortOptions(command: Command, { discovery }: { discovery: boolean }): Command {
  command.addOption(valueOption(LISTEN_FLAG)).addOption(valueOption(POLICY_FLAG));
  if (discovery) command.addOption(valueOption(DISCOVERY_FLAG));
  const faithfulHelp = discovery ? `${FAITHFUL_FLAG.help} ${FAITHFUL_FLAG.withDiscovery}` : FAITHFUL_FLAG.help;
  return command.addOption(new Option(`--${FAITHFUL_FLAG.name}`, faithfulHelp).default(FAITHFUL_FLAG.defaultValue));
}
