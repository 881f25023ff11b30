// The flags of `peerscope sim`, declared once, with their parsers: a bad value is a commander argument
// error, which usage.ts makes one line, exit 2.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { outputOption } from './options.js';

export const DEFAULT_FROM = 'v1.36-dev';
export const DEFAULT_TO = 'v1.37-dev';

export interface SimFlags {
  release: string[];
  releaseFile: Map<string, string[]>;
  servers?: number;
  from?: string;
  to?: string;
  host: string;
  basePort: number;
  http?: boolean;
  writeKubeconfig?: string;
  rollout?: boolean;
  stepSeconds: number;
  traffic?: number;
  auditLogDir?: string;
  output: 'text' | 'json';
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function collectReleaseFile(value: string, previous: Map<string, string[]> = new Map()): Map<string, string[]> {
  const eq = value.indexOf('=');
  if (eq <= 0 || eq === value.length - 1) throw new InvalidArgumentError(`"${value}" is not NAME=FILE`);
  const name = value.slice(0, eq);
  const next = new Map(previous);
  next.set(name, [...(next.get(name) ?? []), value.slice(eq + 1)]);
  return next;
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError(`"${value}" is not a port (0 picks free ones)`);
  return n;
}

function parseServerCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 64) throw new InvalidArgumentError(`"${value}" is not a number of servers from 1 to 64`);
  return n;
}

function parsePositiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`"${value}" is not a positive number`);
  return n;
}

/** Adds sim's flags to `command`. */
export function addSimOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--release <name>', 'one server at this release (repeat for each server); --rollout goes to the last one')
        .argParser(collect)
        .default([])
        .conflicts(['servers', 'from', 'to']),
    )
    .addOption(new Option('--servers <n>', 'N servers at --from (default: 3)').argParser(parseServerCount))
    .addOption(new Option('--from <release>', `the release the servers start at (default: ${DEFAULT_FROM})`))
    .addOption(new Option('--to <release>', `the release --rollout upgrades them to (default: ${DEFAULT_TO})`))
    .addOption(
      new Option(
        '--release-file <name=file>',
        'a release NAME from captured discovery documents (/apis and /api or /api/v1; repeat for each file), usable in --release, --from and --to',
      )
        .argParser(collectReleaseFile)
        .default(new Map(), 'none'),
    )
    .option('--host <address>', 'listen address', '127.0.0.1')
    .addOption(new Option('--base-port <port>', 'server i listens on base-port + i (0 = free ports)').argParser(parsePort).default(0))
    .option('--http', 'plain HTTP without authentication instead of HTTPS with a generated CA and a token')
    .option('--write-kubeconfig <file>', 'write a kubeconfig with one context per server and the CA')
    .option('--rollout', 'upgrade the servers one at a time to --to (or to the last --release)')
    .addOption(
      new Option('--step-seconds <s>', 'seconds each rollout phase (draining, down) lasts').argParser(parsePositiveNumber).default(10),
    )
    .addOption(new Option('--traffic <rps>', 'send this many requests per second straight to the servers').argParser(parsePositiveNumber))
    .option(
      '--audit-log-dir <dir>',
      'each server appends an audit log of the requests it answers to DIR/apiserver-NAME-audit.log (audit.k8s.io/v1, level Metadata), for `peerscope audit`',
    )
    .addOption(outputOption(['text', 'json']));
}
