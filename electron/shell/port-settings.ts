// The desktop app's settings of the local port: what it refuses beyond a foreign Host, given on the
// app's command line with the CLI's flags (`peerscope-desktop --accept-origins 'https://tool\.example'`),
// and applied to every session it runs (the simulated cluster and each kubeconfig's). With no flag
// the port refuses every request a browser marks as from another origin and filters nothing else.
import { PeerscopeError } from '../../proxy-core/contract/errors.js';
import { parsePatternList, type PortFilters } from '../../proxy-core/src/index.js';

const FLAGS = { '--accept-origins': 'acceptOrigins', '--reject-paths': 'rejectPaths', '--reject-methods': 'rejectMethods' } as const;
type Flag = keyof typeof FLAGS;

/**
 * Reads the filter flags out of the app's argv (Chromium's own switches and anything else are left
 * alone), as `--flag value` or `--flag=value`, repeatable. A bad pattern throws naming the flag.
 */
export function portSettingsFromArgv(argv: readonly string[]): PortFilters {
  const out: { acceptOrigins: string[]; rejectPaths: string[]; rejectMethods: string[] } = {
    acceptOrigins: [],
    rejectPaths: [],
    rejectMethods: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const name = (eq < 0 ? arg : arg.slice(0, eq)) as Flag;
    if (!Object.hasOwn(FLAGS, name)) continue;
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new PeerscopeError('PEERSCOPE_ERR_INPUT', `${name} needs a value (comma-separated regular expressions)`);
    out[FLAGS[name]].push(...parsePatternList(name.slice(2), value));
  }
  return out;
}
