// IPC end to end over a real core: the preload's CoreClient → ipcRenderer → the main-side handlers →
// a kubeconfig session (HTTPS, CA, bearer token) on a simulated cluster. Every contract method is called
// with valid arguments (its answer checked against the contract), with invalid ones and from a foreign
// frame; then every reply and pushed event is searched for credentials.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  coreClientMethods,
  createBridgedCoreClient,
  type CoreClient,
  type CoreClientMethod,
  type CoreEvent,
  type RoutingSnapshot,
} from '../../proxy-core/contract/index.js';
import { prepareClusterSession, type ClusterSession } from '../../proxy-core/hosts/index.js';
import { loadRelease } from '../../proxy-core/engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../../proxy-core/sim/index.js';
import { registerCoreIpc } from './core-ipc.js';
import { EVENT_CHANNEL } from './ipc-wire.js';
import { buildPreloadBridge } from './preload-api.js';

const CLIENT_TOKEN = 'client-sent-token-4f9c2a';
type Handler = (event: unknown, ...args: unknown[]) => Promise<unknown>;

describe('IPC round trip over a kubeconfig session', () => {
  let sim: SimCluster;
  let kubeconfigText: string;
  let session: ClusterSession;
  let api: CoreClient;
  const handlers = new Map<string, Handler>();
  /** Everything that crossed to the renderer: replies and pushed events. */
  const crossed: unknown[] = [];
  const rendererListeners = new Map<string, (event: unknown, payload: unknown) => void>();
  const sender = {
    id: 1,
    send: (channel: string, payload: unknown) => {
      crossed.push(payload);
      rendererListeners.get(channel)?.({}, payload);
    },
    once: () => sender,
    isDestroyed: () => false,
  };
  const frame = (url: string) => ({ sender, senderFrame: { url } });

  beforeAll(async () => {
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')] });
    kubeconfigText = sim.kubeconfig();
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'ipc-roundtrip-')), 'config');
    writeFileSync(kubeconfig, kubeconfigText);
    session = await (await prepareClusterSession({ kubeconfig, listen: { host: '127.0.0.1', port: 0 } })).start();
    registerCoreIpc(
      { handle: (c, h) => void handlers.set(c, h as Handler), removeHandler: (c) => void handlers.delete(c) },
      session.service,
    );
    api = createBridgedCoreClient(
      buildPreloadBridge({
        invoke: async (channel: string, ...args: unknown[]) => {
          const reply = await handlers.get(channel)!(frame('peerscope://app/'), ...args);
          crossed.push(reply);
          return reply;
        },
        on: (channel: string, l: (event: unknown, payload: unknown) => void) => void rendererListeners.set(channel, l),
        removeListener: (channel: string) => void rendererListeners.delete(channel),
      } as never),
    );
  }, 60_000);
  afterAll(async () => {
    await session?.close();
    await sim?.close();
  });

  it('answers every contract method with what the contract says, and refuses bad calls', async () => {
    const events: CoreEvent[] = [];
    const unsubscribe = api.subscribe((e) => events.push(e));
    // Traffic through the port, one request bringing its own credential.
    for (const path of ['/api/v1/namespaces/default/configmaps', '/apis/apps/v1/deployments', '/apis/nowhere.example/v1/things']) {
      const res = await request(`${session.address.url}${path}`, { headers: { authorization: `Bearer ${CLIENT_TOKEN}` } });
      await res.body.text();
    }
    const snapshot: RoutingSnapshot = await api.takeSnapshot();
    const valid: { [M in CoreClientMethod]: () => Promise<unknown> } = {
      getOverview: () => api.getOverview(),
      getRouteTable: () => api.getRouteTable(),
      getEvents: () => api.getEvents({ limit: 10 }),
      getClusterEvents: () => api.getClusterEvents({ limit: 10 }),
      getClusterGvrRates: () => api.getClusterGvrRates(),
      getHealthHistory: () => api.getHealthHistory(),
      getDiscoveryViews: () => api.getDiscoveryViews(),
      setDiscoveryMode: () => api.setDiscoveryMode({ mode: 'nopeer' }),
      setPolicy: () => api.setPolicy({ policy: 'random' }),
      takeSnapshot: () => api.takeSnapshot(),
      readSnapshot: () => api.readSnapshot({ text: JSON.stringify(snapshot), file: 'before.json' }),
      compareSnapshots: () => api.compareSnapshots({ before: snapshot, after: snapshot }),
      getImpactReport: () => api.getImpactReport({ to: 'v1.37-dev' }),
      cancelAuditRead: () => api.cancelAuditRead(),
      startRollout: () => api.startRollout(),
      pauseRollout: () => api.pauseRollout(),
      setTrafficRate: () => api.setTrafficRate({ rps: 5 }),
      getRecordingTimeline: () => api.getRecordingTimeline(),
      getStateAt: () => api.getStateAt({ at: Date.now() }),
      getRecordedEvents: () => api.getRecordedEvents({ from: Date.now() - 60_000, to: Date.now(), limit: 100 }),
      getImpactForWindow: () => api.getImpactForWindow({ from: Date.now() - 60_000, to: Date.now() }),
      getFalse404sForWindow: () => api.getFalse404sForWindow({ from: Date.now() - 60_000, to: Date.now() }),
      getRecordings: () => api.getRecordings(),
      setRetention: () => api.setRetention({ maxAgeDays: 14, maxBytes: 1024 }),
      openRecording: () => api.openRecording({ name: 'x.recording.sqlite' }),
      deleteRecording: () => api.deleteRecording({ name: 'x.recording.sqlite' }),
      chooseRecordingFile: () => api.chooseRecordingFile(),
      leaveRecording: () => api.leaveRecording(),
      takeSnapshotAt: () => api.takeSnapshotAt({ at: Date.now() }),
    };
    // Methods with arguments get a wrong one; methods without get one they do not take.
    const invalid: Partial<Record<CoreClientMethod, unknown>> = {
      getEvents: { limit: 0 },
      getClusterEvents: { sinceSeq: -1 },
      setDiscoveryMode: { mode: 'everything' },
      setPolicy: { policy: '' },
      readSnapshot: { text: 42, file: 'x.json' },
      compareSnapshots: { before: {}, after: snapshot },
      getImpactReport: { to: '' },
      getStateAt: { at: 'now' },
      getRecordedEvents: { from: 2, to: 1, limit: 100 },
      getImpactForWindow: { from: 0 },
      getFalse404sForWindow: { from: 0, to: 'later' },
      setRetention: { maxAgeDays: -1, maxBytes: 1 },
      openRecording: { name: '../etc/passwd' },
      deleteRecording: { name: '/tmp/x' },
      takeSnapshotAt: { at: 'now' },
    };
    const simOnly = new Set<CoreClientMethod>(['startRollout', 'pauseRollout', 'setTrafficRate']);
    const recordingOnly = new Set<CoreClientMethod>([
      'getStateAt',
      'getRecordedEvents',
      'getImpactForWindow',
      'getFalse404sForWindow',
      'takeSnapshotAt',
    ]);
    // A bare core service keeps no recordings folder (the app's host does: session/recordings-library.ts):
    // asked what it holds, it answers null; every action on it is refused.
    const libraryOnly = new Set<CoreClientMethod>([
      'setRetention',
      'openRecording',
      'deleteRecording',
      'chooseRecordingFile',
      'leaveRecording',
    ]);
    for (const method of Object.keys(coreClientMethods) as CoreClientMethod[]) {
      if (simOnly.has(method)) {
        // A real cluster has no simulator: a plain message, not a crash or a stack.
        await expect(valid[method](), method).rejects.toMatchObject({
          code: 'PEERSCOPE_ERR_NO_SIMULATOR',
          message: expect.stringMatching(/simulat|no .*(rollout|traffic)/i),
        });
        continue;
      }
      if (libraryOnly.has(method)) {
        await expect(valid[method](), method).rejects.toMatchObject({ code: 'PEERSCOPE_ERR_NO_LIBRARY' });
      } else if (recordingOnly.has(method)) {
        // This session records nothing: said so with its own code.
        await expect(valid[method](), method).rejects.toMatchObject({ code: 'PEERSCOPE_ERR_NO_RECORDING', message: /not recorded/ });
      } else {
        const result = await valid[method]();
        expect(coreClientMethods[method].result.safeParse(result).success, method).toBe(true);
      }

      // From a frame that is not the app: refused before the core is asked.
      expect(await handlers.get(`peerscope:${method}`)!(frame('https://evil.example/'), {}), method).toEqual({
        error: { code: 'PEERSCOPE_ERR_REFUSED', message: expect.stringMatching(/^refused/) },
      });
      // Invalid arguments: the contract's schema names the problem.
      const bad = await handlers.get(`peerscope:${method}`)!(frame('peerscope://app/'), invalid[method] ?? { unexpected: true });
      expect(bad, method).toEqual({
        error: {
          code: 'PEERSCOPE_ERR_INVALID_ARGUMENTS',
          message: expect.stringMatching(new RegExp(`^(invalid arguments for ${method}|${method} takes no arguments)`)),
        },
      });
    }
    expect((await api.getOverview()).discoveryMode).toBe('nopeer');
    // Not recorded: the timeline says so with null (every page asks it), a moment is refused above.
    expect(await api.getRecordingTimeline()).toBeNull();
    expect(await api.readSnapshot({ text: '{"apiVersion": "peerscope.dev/v1",', file: 'cut.json' })).toMatchObject({ ok: false });

    await new Promise((r) => setTimeout(r, 400)); // the batch of routing events is pushed
    unsubscribe();
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['routing', 'settings']));
    expect(rendererListeners.has(EVENT_CHANNEL)).toBe(false);

    // Nothing that crossed holds a credential or kubeconfig text.
    const everything = JSON.stringify(crossed);
    expect(sim.token).toBeTruthy();
    const caData = /certificate-authority-data: (\S+)/.exec(kubeconfigText)?.[1];
    expect(caData).toBeTruthy();
    for (const secret of [sim.token!, CLIENT_TOKEN, caData!, 'PRIVATE KEY', 'certificate-authority-data', 'current-context']) {
      expect(everything.includes(secret), secret.slice(0, 12)).toBe(false);
    }
  }, 60_000);
});
