// No credential crosses IPC: a real core on a kubeconfig's cluster (HTTPS, CA, bearer token) behind the
// real main-side handlers; every contract method is called and every reply and pushed event is searched
// for the kubeconfig's secrets and for a token a client sent through the port.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreClientMethods, type CoreClientMethod } from '../../proxy-core/contract/index.js';
import { prepareClusterSession, type ClusterSession } from '../../proxy-core/src/index.js';
import { loadRelease } from '../../proxy-core/src/sim/catalog/index.js';
import { startSimCluster, type SimCluster } from '../../proxy-core/src/sim/index.js';
import { registerCoreIpc } from './core-ipc.js';

const CLIENT_TOKEN = 'client-sent-token-4f9c2a';

describe('IPC payloads of a kubeconfig session', () => {
  let sim: SimCluster;
  let kubeconfigText: string;
  let session: ClusterSession;
  const handlers = new Map<string, (event: unknown, ...args: unknown[]) => Promise<unknown>>();
  const sent: unknown[] = [];
  const sender = { id: 1, send: (_channel: string, payload: unknown) => sent.push(payload), once: () => sender, isDestroyed: () => false };
  const call = (channel: string, ...args: unknown[]) => handlers.get(channel)!({ sender, senderFrame: { url: 'peerscope://app/' } }, ...args);

  beforeAll(async () => {
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')] });
    kubeconfigText = sim.kubeconfig();
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'ipc-creds-')), 'config');
    writeFileSync(kubeconfig, kubeconfigText);
    session = await (await prepareClusterSession({ kubeconfig, listen: { host: '127.0.0.1', port: 0 } })).start();
    registerCoreIpc({ handle: (c, h) => void handlers.set(c, h as never), removeHandler: (c) => void handlers.delete(c) }, session.service);
  }, 60_000);
  afterAll(async () => {
    await session?.close();
    await sim?.close();
  });

  it('holds no token, key or kubeconfig text in any reply or event', async () => {
    expect(await call('peerscope:subscribe')).toEqual({ result: true });
    // Traffic through the port, one request bringing its own credential.
    for (const path of ['/api/v1/namespaces/default/configmaps', '/apis/apps/v1/deployments', '/apis/nowhere.example/v1/things']) {
      const res = await request(`${session.address.url}${path}`, { headers: { authorization: `Bearer ${CLIENT_TOKEN}` } });
      await res.body.text();
    }
    const snapshot = ((await call('peerscope:takeSnapshot')) as { result: unknown }).result;
    const args: Record<CoreClientMethod, unknown> = {
      getOverview: undefined, getRouteTable: undefined, getEvents: {}, getHealthHistory: undefined, getDiscoveryViews: undefined,
      setDiscoveryMode: { mode: 'nopeer' }, setPolicy: { policy: 'random' }, takeSnapshot: undefined,
      readSnapshot: { text: JSON.stringify(snapshot), file: 'a.json' }, compareSnapshots: { before: snapshot, after: snapshot },
      // Not a simulated cluster: these fail, and their messages are searched too.
      startRollout: undefined, pauseRollout: undefined, setTrafficRate: { rps: 5 },
    };
    const replies: unknown[] = [];
    for (const method of Object.keys(coreClientMethods) as CoreClientMethod[]) {
      replies.push(args[method] === undefined ? await call(`peerscope:${method}`) : await call(`peerscope:${method}`, args[method]));
    }
    expect(replies.filter((r) => 'error' in (r as object)).length).toBeLessThanOrEqual(3);
    await new Promise((r) => setTimeout(r, 400)); // a batch of routing events is pushed
    expect(sent.some((e) => (e as { type: string }).type === 'routing')).toBe(true);

    const everything = JSON.stringify({ replies, sent });
    expect(sim.token).toBeTruthy();
    const caData = /certificate-authority-data: (\S+)/.exec(kubeconfigText)?.[1];
    expect(caData).toBeTruthy();
    for (const secret of [sim.token!, CLIENT_TOKEN, caData!, 'PRIVATE KEY', 'certificate-authority-data', 'current-context']) {
      expect(everything.includes(secret), secret.slice(0, 12)).toBe(false);
    }
  }, 60_000);
});
