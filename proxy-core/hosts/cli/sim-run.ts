// What `peerscope sim` runs (sim.ts registers it): the simulated servers, their kubeconfig, the
// traffic and the rollout until a signal.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadRelease, loadReleaseFiles, type ReleaseCatalog } from '../../engine/releases/index.js';
import { startSimCluster, runRollout, startTraffic, type SimCluster, type TrafficSummary } from '../../sim/index.js';
import { InputError } from '../../engine/util/input-error.js';
import { errnoWords } from '../../engine/util/errno.js';
import { onShutdown, printRolloutEvent } from './options.js';
import { DEFAULT_FROM, DEFAULT_TO, type SimFlags } from './sim-flags.js';
import { simServerJson, simServerRows, simServerTable } from './sim-servers.js';
import { fail } from './usage.js';

export async function runSim(flags: SimFlags): Promise<void> {
  const { releases, target } = releasesOf(flags);
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
  // With -o json, standard output is the one JSON document; every line for a person goes to standard error.
  const say = flags.output === 'json' ? (line: string) => console.error(line) : (line: string) => console.log(line);
  await writeKubeconfig(sim, flags);
  const rows = simServerRows(sim.servers.map((s) => s.info()));
  if (flags.output === 'json') console.log(simServerJson(rows, flags.writeKubeconfig));
  else for (const line of simServerTable(rows)) console.log(line);
  say(
    flags.writeKubeconfig
      ? `kubeconfig with one context per server: kubectl --kubeconfig ${flags.writeKubeconfig} --context ${sim.servers[0]!.name} get ns`
      : 'add --write-kubeconfig FILE for a kubeconfig with one context per server (and the CA and token)',
  );
  runUntilShutdown(sim, flags, releases, target, say);
}

/** The releases of the servers, and the one --rollout goes to; an unknown or bad release ends sim (exit 2). */
function releasesOf(flags: SimFlags): { releases: ReleaseCatalog[]; target: ReleaseCatalog } {
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
    let releases: ReleaseCatalog[];
    let target: ReleaseCatalog;
    if (flags.release.length > 0) {
      releases = flags.release.map(resolve);
      target = releases.at(-1) as ReleaseCatalog;
    } else {
      const from = resolve(flags.from ?? DEFAULT_FROM);
      target = resolve(flags.to ?? DEFAULT_TO);
      releases = Array.from({ length: flags.servers ?? 3 }, () => from);
    }
    for (const name of flags.releaseFile.keys()) resolve(name); // a bad capture fails now even if unused
    return { releases, target };
  } catch (err) {
    if (err instanceof InputError) fail(err.message);
    throw err;
  }
}

async function writeKubeconfig(sim: SimCluster, flags: SimFlags): Promise<void> {
  if (!flags.writeKubeconfig) return;
  try {
    writeFileSync(flags.writeKubeconfig, sim.kubeconfig(), { mode: 0o600 });
  } catch (err) {
    await sim.close();
    fail(`--write-kubeconfig ${flags.writeKubeconfig}: cannot write: ${errnoWords(err)}`);
  }
}

/** The traffic and the rollout asked for, until SIGINT or SIGTERM; then what the traffic got. */
function runUntilShutdown(
  sim: SimCluster,
  flags: SimFlags,
  releases: ReleaseCatalog[],
  target: ReleaseCatalog,
  say: (line: string) => void,
): void {
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
      onEvent: (e) => printRolloutEvent(e, say),
    }).catch((err: Error) => console.error(`peerscope: rollout: ${err.message}`));
  }
  onShutdown(async () => {
    abort.abort();
    const summary = await traffic?.stop();
    await rollout;
    await sim.close();
    if (summary) say(describeTraffic(summary));
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
