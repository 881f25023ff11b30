// The simulated control plane with the local port in front, a rollout driver, traffic through the port
// and straight to the servers, and the core following the servers' audit logs (the cluster source),
// composed once for every host that shows it: `peerscope demo` (terminal and browser mode) and the
// desktop app's "Start simulated cluster". Prints nothing; hosts decide what to say. Its folder is
// demo-folder.ts's, its traffic demo-traffic.ts's.
import { PeerscopeError } from '../../contract/errors.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSimController, type SimController } from '../service/sim-controller.js';
import { createCoreService, type CoreService } from '../service/service.js';
import { createCore, type Core, type ListenAddress, type PortFilters } from '../../engine/core.js';
import type { HandlingPolicy } from '../../engine/proxy/policy.js';
import { TOKEN_USER } from '../../sim/index.js';
import { loadRelease, type ReleaseCatalog } from '../../engine/releases/index.js';
import { resolvePin } from './pin-target.js';
import { simAuditLogFile, startSimCluster, type SimCluster } from '../../sim/index.js';
import type { TrafficHandle, TrafficResult } from '../../sim/index.js';
import type { SimEvent } from '../../sim/index.js';
import { defaultRecordingFile, portKubeconfig, removeAllBut } from './demo-folder.js';
import { startDemoTraffic } from './demo-traffic.js';

export { portKubeconfig };

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

  /** A line per audit log and problem with its input (createCore's `onAuditProblem`). */
  readonly onAuditProblem?: (line: string) => void;
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
  const recordingFile = options.record ? (options.record.file ?? defaultRecordingFile(dir)) : undefined;
  const { sim, policy } = await startDemoCluster(options, from, dir);
  const core = createCore({
    servers: sim.serverConfigs(),
    listen: options.listen ?? { host: '127.0.0.1', port: 8001 },
    ...(policy ? { policy } : {}),
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

    ...(options.onAuditProblem ? { onAuditProblem: options.onAuditProblem } : {}),
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
  const { traffic, portTraffic, clusterTraffic } = startDemoTraffic(sim, address.url, [from, to], trafficRps, options.onTrafficResult);
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
    onStep: (server, step) => core.recordStep(server, step),
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

/** The simulated servers, all on `from`, and the policy (a pin named as a person reads it resolved); the folder is removed if either fails. */
async function startDemoCluster(
  options: DemoSessionOptions,
  from: ReleaseCatalog,
  dir: string,
): Promise<{ sim: SimCluster; policy: HandlingPolicy | undefined }> {
  const servers = options.servers ?? 3;
  let sim: SimCluster;
  try {
    sim = await startSimCluster({ releases: Array.from({ length: servers }, () => from), basePort: 0, auditLogDir: dir });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  try {
    return { sim, policy: options.policy && resolvePin(options.policy, sim.serverConfigs()) };
  } catch (err) {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
