// `peerscope sim`: the simulated control plane on its own — servers of real releases on loopback,
// optionally a rollout and traffic — for rehearsals and for pointing any tool at it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { loadRelease, loadReleaseFiles, type ReleaseCatalog } from '../../engine/releases/index.js';
import { startSimCluster } from '../../sim/index.js';
import { runRollout } from '../../sim/index.js';
import { startTraffic, type TrafficSummary } from '../../sim/index.js';
import { InputError } from '../../engine/util/input-error.js';
import { onShutdown, printRolloutEvent } from './options.js';
import { fail } from './usage.js';
import { errnoWords } from '../../engine/util/errno.js';

const DEFAULT_FROM = 'v1.36-dev';
const DEFAULT_TO = 'v1.37-dev';

interface SimFlags {
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
}

/** A commander argument error (a usage error: usage.ts makes it one line, exit 2). */
function badValue(message: string): InvalidArgumentError {
  return new InvalidArgumentError(message);
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function collectReleaseFile(value: string, previous: Map<string, string[]> = new Map()): Map<string, string[]> {
  const eq = value.indexOf('=');
  if (eq <= 0 || eq === value.length - 1) throw badValue(`"${value}" is not NAME=FILE`);
  const name = value.slice(0, eq);
  const next = new Map(previous);
  next.set(name, [...(next.get(name) ?? []), value.slice(eq + 1)]);
  return next;
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw badValue(`"${value}" is not a port (0 picks free ones)`);
  return n;
}

function parseServerCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 64) throw badValue(`"${value}" is not a number of servers from 1 to 64`);
  return n;
}

function parsePositiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw badValue(`"${value}" is not a positive number`);
  return n;
}

export function registerSimCommand(program: Command): void {
  program
    .command('sim')
    .description('run simulated kube-apiservers of real Kubernetes releases on loopback, sharing one object store')
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
    .action(async (flags: SimFlags) => {
      let releases: ReleaseCatalog[];
      let target: ReleaseCatalog;
      try {
        const loaded = new Map<string, ReleaseCatalog>();
        const resolve = (name: string): ReleaseCatalog => {
          let release = loaded.get(name);
          if (!release) {
            const files = flags.releaseFile.get(name);
            release = files ? loadReleaseFiles(name, files) : loadRelease(name);
            loaded.set(name, release);
          }
          return release;
        };
        if (flags.release.length > 0) {
          releases = flags.release.map(resolve);
          target = releases.at(-1) as ReleaseCatalog;
        } else {
          const from = resolve(flags.from ?? DEFAULT_FROM);
          target = resolve(flags.to ?? DEFAULT_TO);
          releases = Array.from({ length: flags.servers ?? 3 }, () => from);
        }
        for (const name of flags.releaseFile.keys()) resolve(name); // a bad capture fails now even if unused
      } catch (err) {
        if (err instanceof InputError) fail(err.message);
        throw err;
      }

      if (flags.auditLogDir) {
        try {
          mkdirSync(flags.auditLogDir, { recursive: true });
        } catch (err) {
          fail(`--audit-log-dir ${flags.auditLogDir}: cannot create: ${errnoWords(err)}`);
        }
      }
      const sim = await startSimCluster({
        releases,
        host: flags.host,
        basePort: flags.basePort,
        ...(flags.http ? { http: true } : {}),
        ...(flags.auditLogDir ? { auditLogDir: flags.auditLogDir } : {}),
      }).catch((err: NodeJS.ErrnoException) => fail(listenFailure(err, flags)));
      for (const s of sim.servers) {
        const i = s.info();
        console.log(`${i.name}\t${i.release}\t${i.url}`);
      }
      if (flags.writeKubeconfig) {
        try {
          writeFileSync(flags.writeKubeconfig, sim.kubeconfig(), { mode: 0o600 });
        } catch (err) {
          await sim.close();
          fail(`--write-kubeconfig ${flags.writeKubeconfig}: cannot write: ${errnoWords(err)}`);
        }
        console.log(
          `kubeconfig with one context per server: kubectl --kubeconfig ${flags.writeKubeconfig} --context ${sim.servers[0]!.name} get ns`,
        );
      } else {
        console.log('add --write-kubeconfig FILE for a kubeconfig with one context per server (and the CA and token)');
      }

      const traffic = flags.traffic
        ? startTraffic({
            targets: sim.servers.map((s) => s.info().url),
            rps: flags.traffic,
            releases: [...new Set([...releases, target])],
            ...(sim.ca ? { ca: sim.ca } : {}),
            ...(sim.token ? { token: sim.token } : {}),
          })
        : undefined;
      const abort = new AbortController();
      let rollout: Promise<void> = Promise.resolve();
      if (flags.rollout) {
        rollout = runRollout(sim.servers, target, {
          drainSeconds: flags.stepSeconds,
          downSeconds: flags.stepSeconds,
          signal: abort.signal,
          onEvent: printRolloutEvent,
        }).catch((err: Error) => console.error(`peerscope: rollout: ${err.message}`));
      }
      onShutdown(async () => {
        abort.abort();
        const summary = await traffic?.stop();
        await rollout;
        await sim.close();
        if (summary) console.log(describeTraffic(summary));
      });
    });
}

function listenFailure(err: NodeJS.ErrnoException & { port?: number; address?: string }, flags: SimFlags): string {
  const where = err.port !== undefined ? `${err.address ?? flags.host}:${err.port}` : flags.host;
  const input = flags.basePort === 0 ? `--host ${flags.host}` : `--base-port ${flags.basePort}`;
  if (err.code === 'EADDRINUSE') return `${input}: ${where} is already in use; pick another port, or --base-port 0 for free ones`;
  if (err.code === 'EADDRNOTAVAIL') return `--host ${flags.host}: not an address of this machine`;
  if (err.code === 'EACCES') return `${input}: not allowed to listen on ${where}`;
  return `${input}: cannot start the simulated servers on ${where}: ${errnoWords(err)}`;
}

function describeTraffic(s: TrafficSummary): string {
  const statuses = Object.entries(s.byStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, n]) => `${code === '0' ? 'no answer' : code} ${n}`)
    .join(', ');
  return `traffic: ${s.total} requests (${statuses}); 404 for a collection or create ${s.notFound.length}; acknowledged writes ${s.writes.length}`;
}
