// Shared option parsers: each turns a bad value into a commander error naming the flag and value.
import { Help, InvalidArgumentError, type Option } from 'commander';
import { formatPolicy, type HandlingPolicy } from '../../engine/proxy/policy.js';
import type { SimEvent } from '../../sim/index.js';
import { loadRelease, type ReleaseCatalog } from '../../engine/releases/index.js';
import { InputError } from '../../engine/util/input-error.js';
import { fail } from './usage.js';

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
export function printRolloutEvent(e: SimEvent): void {
  if (e.type === 'rollout-step') console.log(`rollout: ${e.server} ${e.phase} (${e.from} → ${e.to})`);
  if (e.type === 'rollout-done') console.log(`rollout: every server runs ${e.release}`);
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
