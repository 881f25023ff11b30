// How often the desktop app finds a kubeconfig cluster's apiservers again, from its command line as the
// CLI takes it: `--server-refresh SECONDS` (0 = never), or `--peer-refresh`, its old name, still
// accepted and said to be renamed. Without either, the core's default (every 30 s).
import { PeerscopeError } from '../../proxy-core/contract/errors.js';

export interface ServerRefreshSetting {
  /** Undefined: the core's default. */
  readonly intervalMs?: number;
  /** What the operator should be told (an old flag name). */
  readonly notes: readonly string[];
}

const FLAG = '--server-refresh';
const OLD_FLAG = '--peer-refresh';

/** Reads the flag in both forms (`--flag value`, `--flag=value`); other switches are left alone. */
export function serverRefreshFromArgv(argv: readonly string[]): ServerRefreshSetting {
  const given = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (name !== FLAG && name !== OLD_FLAG) continue;
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new PeerscopeError('PEERSCOPE_ERR_INPUT', `${name} needs a number of seconds (0 = never)`);
    given.set(name, value);
  }
  if (given.has(FLAG) && given.has(OLD_FLAG))
    throw new PeerscopeError('PEERSCOPE_ERR_INPUT', `give ${FLAG} only: ${OLD_FLAG} is its old name`);
  const [name, value] = [...given][0] ?? [];
  if (name === undefined || value === undefined) return { notes: [] };
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds < 0)
    throw new PeerscopeError('PEERSCOPE_ERR_INPUT', `${name} "${value}" is not a number of seconds (0 or more)`);
  return {
    intervalMs: seconds * 1000,
    notes: name === OLD_FLAG ? [`${OLD_FLAG} is renamed ${FLAG}; the old name still works`] : [],
  };
}
