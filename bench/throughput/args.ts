// What the bench's experiment scripts read from their command line: `--name value` flags, and
// environments written as 'K=V,K=V' (a value may itself contain '=', as in NODE_OPTIONS=--import=x).

/** The value after `--name`, or `dflt` when the flag is absent. */
export function flag(name: string, dflt: string, argv: readonly string[] = process.argv.slice(2)): string {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? (argv[i + 1] as string) : dflt;
}

/** 'K=V,K=V' as an environment; each value runs to the next comma. */
export function envSpec(spec: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const kv of spec.split(',').filter(Boolean)) {
    const at = kv.indexOf('=');
    if (at <= 0) throw new Error(`"${kv}" is not NAME=VALUE`);
    env[kv.slice(0, at)] = kv.slice(at + 1);
  }
  return env;
}
