// Shared option parsers: each turns a bad value into a commander error naming the flag and value.
import { Help, InvalidArgumentError, Option, type Command } from 'commander';
import { formatPolicy, type HandlingPolicy } from '../../engine/proxy/policy.js';
import type { SimEvent } from '../../sim/index.js';
import { loadRelease, type ReleaseCatalog } from '../../engine/releases/index.js';
import { InputError } from '../../engine/util/input-error.js';
import { fail } from './usage.js';
import { errnoWords } from '../../engine/util/errno.js';

export function parseNameEqualsUrl(value: string, previous: { name: string; url: string }[] = []): { name: string; url: string }[] {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`"${value}" is not NAME=URL`);
  const name = value.slice(0, eq);
  const url = value.slice(eq + 1);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidArgumentError(`"${url}" is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new InvalidArgumentError(`"${url}" must be http:// or https://`);
  if (previous.some((p) => p.name === name)) throw new InvalidArgumentError(`server name "${name}" is given twice`);
  return [...previous, { name, url: parsed.origin }];
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`"${value}" is not a positive whole number`);
  return n;
}

/** A catalog release given by `flag` (demo --from/--to); an unknown name is refused naming that flag. */
export function releaseOfFlag(flag: string, name: string): ReleaseCatalog {
  try {
    return loadRelease(name);
  } catch (err) {
    if (err instanceof InputError) fail(`${flag} ${name}: ${err.detail}`);
    throw err;
  }
}

/** Stops `onStop` once on SIGINT/SIGTERM, then exits 0. */
export function onShutdown(onStop: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`peerscope: ${signal}, shutting down\n`);
    onStop().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`peerscope: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

/** One line per rollout step, as `sim --rollout` and `demo` print them. */
export function printRolloutEvent(e: SimEvent, say: (line: string) => void = console.log): void {
  if (e.type === 'rollout-step') say(`rollout: ${e.server} ${e.phase} (${e.from} → ${e.to})`);
  if (e.type === 'rollout-done') say(`rollout: every server runs ${e.release}`);
}

/**
 * An option's default as a user would type it (`127.0.0.1:8001`, `round-robin`, `v1.36-dev`), or
 * undefined when there is nothing to show (an off switch, an empty list). Commander would print the
 * parsed value as JSON.
 */
export function typedDefault(option: Pick<Option, 'defaultValue' | 'defaultValueDescription'>): string | undefined {
  if (option.defaultValueDescription) return option.defaultValueDescription;
  const value: unknown = option.defaultValue;
  if (value === undefined || value === false || (Array.isArray(value) && value.length === 0)) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || value === true) return String(value);
  if (isListen(value)) return `${value.host}:${value.port}`;
  if (isPolicy(value)) return formatPolicy(value);
  return JSON.stringify(value);
}

function isListen(value: unknown): value is { host: string; port: number } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { host?: unknown }).host === 'string' &&
    typeof (value as { port?: unknown }).port === 'number'
  );
}

function isPolicy(value: unknown): value is HandlingPolicy {
  const kind = typeof value === 'object' && value !== null ? (value as { kind?: unknown }).kind : undefined;
  return kind === 'round-robin' || kind === 'random' || kind === 'pin';
}

/** Help whose defaults read as typed (typedDefault); set on the program before its commands are added. */
export const helpConfiguration: Partial<Help> = {
  optionDescription(option: Option): string {
    const shown = typedDefault(option);
    const asShown = Object.assign(Object.create(Object.getPrototypeOf(option) as object) as Option, option, {
      defaultValue: shown === undefined ? undefined : option.defaultValue,
      defaultValueDescription: shown,
    });
    return Help.prototype.optionDescription.call(this, asShown);
  },
};

/** `-o, --output FORMAT`, the same flag on every command that prints a table or a report. */
export function outputOption<F extends string>(formats: readonly [F, ...F[]]): Option {
  const words = formats.length > 1 ? `${formats.slice(0, -1).join(', ')} or ${formats.at(-1)}` : formats[0];
  return new Option('-o, --output <format>', words).choices(formats).default(formats[0]);
}

/** The running port's URL flag of report and snapshot save; `--from`, its old name, still read (portUrlOf). */
export function addPortUrlOptions(command: Command): Command {
  return command
    .option('--port-url <url>', 'the local port of a running `peerscope serve` or `demo`', DEFAULT_PORT_URL)
    .option('--from <url>', 'renamed --port-url (the old name still works for a URL)');
}

const DEFAULT_PORT_URL = 'http://127.0.0.1:8001';

/**
 * The running port's URL: --port-url, or --from given a URL (said to be renamed). --from is a release
 * in sim and demo; given one here, it is refused saying so.
 */
export function portUrlOf(flags: { portUrl: string; from?: string }, command: Command): string {
  if (flags.from === undefined) return flags.portUrl;
  if (command.getOptionValueSource('portUrl') === 'cli') fail('--from is the old name of --port-url; give --port-url only');
  if (!/^https?:\/\//.test(flags.from))
    fail(
      `--from ${flags.from}: here --from was the running port's URL (now --port-url), not a release; the current servers' releases are read from the port or --snapshot, the target is --to`,
    );
  process.stderr.write('peerscope: --from is renamed --port-url; the old name still works\n');
  return flags.from;
}

/** Why the running port could not be read, and what to do about it. */
export function unreachablePort(err: unknown): string {
  return `cannot reach a running Peerscope: ${errnoWords(err)}; start \`peerscope serve\` or \`peerscope demo\`, or give --port-url URL`;
}
