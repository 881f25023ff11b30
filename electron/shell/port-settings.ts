// The desktop app's settings of the local port: what it accepts and refuses beyond its own Host names,
// given on the app's command line with the CLI's flags (`peerscope-desktop --accept-origins
// 'https://tool\.example'`; the flags are PORT_FILTER_FLAGS, declared once for both), and applied to
// every session it runs (the simulated cluster and each kubeconfig's). With no flag the port accepts
// only its own Host names, refuses every request a browser marks as from another origin and filters
// nothing else. `--faithful` (the CLI's flag of serve and demo, FAITHFUL_FLAG of the same table of
// port flags) makes every session answer as the servers' own Mixed Version Proxy does.
import { PeerscopeError } from '../../proxy-core/contract/errors.js';
import { emptyPortFilters, FAITHFUL_FLAG, PORT_FILTER_FLAGS, type PortFilters } from '../../proxy-core/hosts/index.js';

const FLAGS = new Map(PORT_FILTER_FLAGS.map((flag) => [`--${flag.name}`, flag]));

/**
 * Reads the filter flags out of the app's argv (Chromium's own switches and anything else are left
 * alone), as `--flag value` or `--flag=value`, repeatable. A bad pattern throws naming the flag.
 */
export function portSettingsFromArgv(argv: readonly string[]): PortFilters {
  const out = emptyPortFilters();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const flag = FLAGS.get(name);
    if (!flag) continue;
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new PeerscopeError('PEERSCOPE_ERR_INPUT', `${name} needs a value (comma-separated ${flag.items})`);
    out[flag.option].push(...flag.read(value));
  }
  return out;
}

/**
 * `--faithful` on the app's command line (also `--faithful=true|false`): the servers' own MVP exactly
 * (rule P8 off) in every session. Anything else than true or false after `=` throws naming the flag.
 */
export function faithfulFromArgv(argv: readonly string[]): boolean {
  const flag = `--${FAITHFUL_FLAG.name}`;
  let faithful = FAITHFUL_FLAG.defaultValue;
  for (const arg of argv) {
    if (arg === flag) faithful = true;
    else if (arg.startsWith(`${flag}=`)) {
      try {
        faithful = FAITHFUL_FLAG.read(arg.slice(flag.length + 1));
      } catch (err) {
        throw new PeerscopeError('PEERSCOPE_ERR_INPUT', (err as Error).message);
      }
    }
  }
  return faithful;
}
