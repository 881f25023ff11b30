// The simulated control plane with the local port in front, a rollout driver, traffic through the port
// and straight to the servers, and the core following the servers' audit logs (the cluster source),
// composed once for every host that shows it: `peerscope demo` (terminal and browser mode) and the
// desktop app's "Start simulated cluster". Prints nothing; hosts decide what to say.
import { PeerscopeError } from '../../contract/errors.js';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { RECORDING_SUFFIX } from '../../engine/recording/list.js';
import { createSimController, type SimController } from '../service/sim-controller.js';
import { createCoreService, type CoreService } from '../service/service.js';
import { createCore, type Core, type ListenAddress, type PortFilters } from '../../engine/core.js';
import type { HandlingPolicy } from '../../engine/proxy/policy.js';
import { TOKEN_USER } from '../../sim/index.js';
import { loadRelease } from '../../engine/releases/index.js';
import { simAuditLogFile, startSimCluster, type SimCluster } from '../../sim/index.js';
import { startTraffic, type TrafficHandle, type TrafficResult } from '../../sim/index.js';
import type { SimEvent } from '../../sim/index.js';

export interface DemoSessionOptions {
  readonly from?: string;
  readonly to?: string;
  readonly servers?: number;
  /** Default 127.0.0.1:8001; port 0 picks a free one. */
  readonly listen?: { readonly host: string; readonly port: number };
  /** When the listen port is taken (another proxy on 8001), listen on a free port instead of failing. */
  readonly anyPortIfBusy?: boolean;
  readonly policy?: HandlingPolicy;
  /** The servers' own MVP exactly (createCore's `faithful`). */
  readonly faithful?: boolean;
  /** What the port refuses (--accept-origins, --reject-paths, --reject-methods); default: the port's defaults. */
  readonly filters?: PortFilters;
  /**
   * Requests per second through the port, and as many again straight to the servers (the cluster's own
   * clients, which Peerscope sees only in the servers' audit logs); 0 sends none.
   */
  readonly trafficRps?: number;
  /** Seconds each rollout phase (draining, down) lasts. */
  readonly stepSeconds?: number;
  /** Start the rollout after this many seconds; undefined: only when asked (startRollout). */
  readonly rolloutAfterSeconds?: number;
  readonly onRolloutEvent?: (e: SimEvent) => void;
  readonly onRolloutError?: (err: Error) => void;
  /** Every request the traffic generator sent, as it was answered. */
  readonly onTrafficResult?: (r: TrafficResult) => void;
  /**
   * Record the session (createCore's `record`): into `file`, or by default into the session's temporary
   * folder, which then outlives the session with the recording alone in it.
   */
  readonly record?: { readonly file?: string; readonly onError?: (err: Error) => void };
}

export interface DemoSession {
  readonly kind: 'demo';
  readonly core: Core;
  readonly sim: SimCluster;
  readonly rollout: SimController;
  /** Traffic through the port, and the rate control of both generators. */
  readonly traffic: TrafficHandle;
  /** The cluster's own clients, sent straight to the servers as a load balancer spreads them. */
  readonly clusterTraffic: TrafficHandle;
  /** CoreClient of this session, with the simulator's controls. */
  readonly service: CoreService;
  readonly address: ListenAddress;
  /** A kubeconfig (no credentials: the port needs none) that points kubectl at the port. */
  readonly kubeconfigPath: string;
  /** The file the session is recorded into, when it is. */
  readonly recordingFile: string | undefined;
  /** Stops traffic and rollout, closes the port, then the simulated servers. */
  close(): Promise<{ readonly requestsSent: number; readonly sentToServers: number }>;
}

export async function startDemoSession(options: DemoSessionOptions = {}): Promise<DemoSession> {
  const fromName = options.from ?? 'v1.36-dev';
  const from = loadRelease(fromName);
  const to = loadRelease(options.to ?? 'v1.37-dev');
  // The kubeconfig and the servers' audit logs, which the core follows: the demo's cluster source.
  const dir = mkdtempSync(join(tmpdir(), 'peerscope-demo-'));
  const servers = options.servers ?? 3;
  const recordingFile = options.record ? (options.record.file ?? join(dir, `demo-${fileTime()}${RECORDING_SUFFIX}`)) : undefined;
  let sim: SimCluster;
  try {
    sim = await startSimCluster({ releases: Array.from({ length: servers }, () => from), basePort: 0, auditLogDir: dir });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const core = createCore({
    servers: sim.serverConfigs(),
    listen: options.listen ?? { host: '127.0.0.1', port: 8001 },
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.faithful ? { faithful: true } : {}),
    ...options.filters,
    probeIntervalMs: 1_000,
    snapshotSource: 'sim',
    // Clients of the port bring no credential: the port adds the simulated cluster's token, whose user this is.
    ...(sim.token ? { ownIdentity: TOKEN_USER.name } : {}),
    auditLogs: sim.servers.map((s) => ({ server: s.name, file: simAuditLogFile(dir, s.name) })),
    ...(recordingFile
      ? { record: { file: recordingFile, host: 'demo', ...(options.record?.onError ? { onError: options.record.onError } : {}) } }
      : {}),
  });
  let address: ListenAddress;
  try {
    address = await core.start();
  } catch (err) {
    await Promise.all([core.close(0), sim.close()]);
    rmSync(dir, { recursive: true, force: true });
    // A retry on another port records into the same file, anew.
    if (options.record?.file) for (const f of ['', '-wal', '-shm']) rmSync(`${options.record.file}${f}`, { force: true });
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' && options.anyPortIfBusy) {
      return startDemoSession({ ...options, listen: { host: options.listen?.host ?? '127.0.0.1', port: 0 }, anyPortIfBusy: false });
    }
    const where = options.listen ? `${options.listen.host}:${options.listen.port}` : '127.0.0.1:8001';
    throw new PeerscopeError('PEERSCOPE_ERR_LISTEN', `cannot listen on ${where}: ${code ?? (err as Error).message}`, { cause: err });
  }
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, portKubeconfig(address.url), { mode: 0o600 });

  const trafficRps = options.trafficRps ?? 20;
  const portTraffic = startTraffic({
    targets: [address.url],
    rps: trafficRps,
    releases: [from, to],
    ...(options.onTrafficResult ? { onResult: options.onTrafficResult } : {}),
  });
  // The same clients (the legacy operator among them) straight to the servers, round-robin: during the
  // rollout an upgraded server answers them 404 for what only its peers still serve — false 404s no
  // port sees, only the servers' audit logs.
  const clusterTraffic = startTraffic({
    targets: sim.servers.map((s) => s.info().url),
    rps: trafficRps,
    releases: [from, to],
    seed: 2,
    ...(sim.ca ? { ca: sim.ca } : {}),
    ...(sim.token ? { token: sim.token } : {}),
  });
  const traffic: TrafficHandle = {
    ...portTraffic,
    setRate(rps) {
      portTraffic.setRate(rps);
      clusterTraffic.setRate(rps);
    },
  };
  const stepSeconds = options.stepSeconds ?? 10;
  const rollout = createSimController({
    servers: sim.servers,
    from: fromName,
    to,
    traffic,
    trafficRps,
    rollout: {
      drainSeconds: stepSeconds,
      downSeconds: stepSeconds,
      ...(options.onRolloutEvent ? { onEvent: options.onRolloutEvent } : {}),
    },
    ...(options.onRolloutError ? { onRolloutError: options.onRolloutError } : {}),
  });
  const timer =
    options.rolloutAfterSeconds === undefined ? undefined : setTimeout(() => rollout.startRollout(), options.rolloutAfterSeconds * 1000);
  const service = createCoreService(core, { sim: rollout, snapshotSource: 'sim' });

  let closing: Promise<{ requestsSent: number; sentToServers: number }> | undefined;
  return {
    kind: 'demo',
    core,
    sim,
    rollout,
    traffic,
    clusterTraffic,
    service,
    address,
    kubeconfigPath,
    recordingFile,
    close() {
      closing ??= (async () => {
        clearTimeout(timer);
        service.close();
        const rolloutClosed = rollout.close();
        const [summary, direct] = await Promise.all([portTraffic.stop(), clusterTraffic.stop()]);
        await rolloutClosed;
        await core.close(2_000);
        await sim.close();
        removeAllBut(dir, recordingFile);
        return { requestsSent: summary.total ?? 0, sentToServers: direct.total ?? 0 };
      })();
      return closing;
    },
  };
}

/** A kubeconfig for the local port: plain HTTP on loopback, no user credentials. */
export function portKubeconfig(url: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: peerscope',
    '  cluster:',
    `    server: ${url}`,
    'contexts:',
    '- name: peerscope',
    '  context:',
    '    cluster: peerscope',
    '    user: peerscope',
    'users:',
    '- name: peerscope',
    '  user: {}',
    'current-context: peerscope',
    '',
  ].join('\n');
}

/** "20261127-143205": a recording's name in the session folder. */
function fileTime(): string {
  return new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/** Removes the session folder, or, when the recording is in it, everything else. */
function removeAllBut(dir: string, recording: string | undefined): void {
  if (!recording || dirname(recording) !== dir) {
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  for (const name of readdirSync(dir)) if (join(dir, name) !== recording) rmSync(join(dir, name), { recursive: true, force: true });
}
