// `peerscope sim`: the simulated control plane on its own — servers of real releases on loopback,
// optionally a rollout and traffic — for rehearsals and for pointing any tool at it.
import { writeFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { loadRelease, loadReleaseFiles, type ReleaseCatalog } from '../sim/catalog/index.js';
import { startSimCluster } from '../sim/cluster.js';
import { runRollout } from '../sim/rollout.js';
import { startTraffic } from '../sim/traffic.js';
import { InputError } from '../util/input-error.js';
import { onShutdown, parsePositiveInt, printRolloutEvent } from './options.js';

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
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function collectReleaseFile(value: string, previous: Map<string, string[]> = new Map()): Map<string, string[]> {
  const eq = value.indexOf('=');
  if (eq <= 0 || eq === value.length - 1) throw new InvalidArgumentError(`"${value}" is not NAME=FILE`);
  const next = new Map(previous);
  next.set(value.slice(0, eq), [...(next.get(value.slice(0, eq)) ?? []), value.slice(eq + 1)]);
  return next;
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`"${value}" is not a port (0 picks free ones)`);
  return n;
}

export function registerSimCommand(program: Command): void {
  program
    .command('sim')
    .description('run simulated kube-apiservers of real Kubernetes releases on loopback, sharing one object store')
    .option('--release <name>', 'one server at this release (repeat for each server)', collect, [])
    .option('--release-file <name=file>', 'a release from captured discovery documents (/apis and /api or /api/v1; repeat for each file)', collectReleaseFile, new Map())
    .option('--servers <n>', 'N servers at --from (with --from and --to)', parsePositiveInt)
    .option('--from <release>', 'the release the servers start at')
    .option('--to <release>', 'the release --rollout upgrades them to')
    .option('--host <address>', 'listen address', '127.0.0.1')
    .option('--base-port <port>', 'server i listens on base-port + i (0 = free ports)', parsePort, 0)
    .option('--http', 'plain HTTP without authentication instead of HTTPS with a generated CA and a token')
    .option('--write-kubeconfig <file>', 'write a kubeconfig with one context per server and the CA')
    .option('--rollout', 'upgrade the servers one at a time to --to (or the newest --release)')
    .option('--step-seconds <s>', 'seconds each rollout phase lasts', parsePositiveInt, 10)
    .option('--traffic <rps>', 'send this many requests per second straight to the servers', parsePositiveInt)
    .action(async (flags: SimFlags) => {
      const resolve = (name: string): ReleaseCatalog => {
        const files = flags.releaseFile.get(name);
        return files ? loadReleaseFiles(name, files) : loadRelease(name);
      };
      let releases: ReleaseCatalog[];
      let target: ReleaseCatalog | undefined;
      try {
        if (flags.servers !== undefined || flags.from || flags.to) {
          if (flags.release.length) fail('give either --release … or --servers N --from vA --to vB, not both');
          const from = resolve(flags.from ?? 'v1.36-dev');
          target = resolve(flags.to ?? 'v1.37-dev');
          releases = Array.from({ length: flags.servers ?? 3 }, () => from);
        } else {
          const names = flags.release.length ? flags.release : ['v1.36-dev', 'v1.37-dev'];
          releases = names.map(resolve);
          target = releases.at(-1);
        }
      } catch (err) {
        if (err instanceof InputError) fail(err.message);
        throw err;
      }
      const sim = await startSimCluster({ releases, host: flags.host, basePort: flags.basePort, ...(flags.http ? { http: true } : {}) }).catch((err: NodeJS.ErrnoException) =>
        fail(`cannot start the simulated servers on ${flags.host}: ${err.code ?? err.message}`),
      );
      for (const s of sim.servers) {
        const i = s.info();
        console.log(`${i.name}\t${i.release}\t${i.url}`);
      }
      if (flags.writeKubeconfig) {
        writeFileSync(flags.writeKubeconfig, sim.kubeconfig(), { mode: 0o600 });
        console.log(`kubeconfig with one context per server: kubectl --kubeconfig ${flags.writeKubeconfig} --context ${sim.servers[0]!.name} get ns`);
      }
      const traffic = flags.traffic ? startTraffic({ targets: sim.servers.map((s) => s.info().url), rps: flags.traffic, releases: [...releases, ...(target ? [target] : [])], ...(sim.ca ? { ca: sim.ca } : {}), ...(sim.token ? { token: sim.token } : {}) }) : undefined;
      const abort = new AbortController();
      let rollout: Promise<void> = Promise.resolve();
      if (flags.rollout && target) {
        rollout = runRollout(sim.servers, target, {
          drainSeconds: flags.stepSeconds,
          downSeconds: flags.stepSeconds,
          signal: abort.signal,
          onEvent: printRolloutEvent,
        }).catch((err: Error) => console.error(`rollout: ${err.message}`));
      }
      onShutdown(async () => {
        abort.abort();
        await traffic?.stop();
        await rollout;
        await sim.close();
      });
    });
}

function fail(message: string): never {
  process.stderr.write(`peerscope: ${message}\n`);
  process.exit(2);
}
