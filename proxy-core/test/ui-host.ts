// Shared setup for the UI server tests (proxy-core/hosts/ui-server/*.test.ts): a simulated
// two-release control plane, a core with its local port in front, the UI server serving a stub
// renderer, and plain HTTP calls to it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from '../engine/core.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';
import { startUiServer, type UiServer } from '../hosts/ui-server/server.js';
import { createCoreService, type CoreService } from '../hosts/service/service.js';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function call(
  port: number,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers: { host: `127.0.0.1:${port}`, ...init.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/** Calls a CoreClient method over the UI server's JSON API with its token. */
export function rpcCall(control: UiServer, method: string, args: unknown = {}, headers: Record<string, string> = {}): Promise<Reply> {
  return call(control.port, `/api/rpc/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${control.token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(args),
  });
}

export interface UiHost {
  readonly sim: SimCluster;
  readonly core: Core;
  readonly service: CoreService;
  readonly control: UiServer;
  readonly coreUrl: string;
  close(): Promise<void>;
}

export async function startUiHost(): Promise<UiHost> {
  let core: Core | undefined;
  let service: CoreService | undefined;
  let control: UiServer | undefined;
  const sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')] });
  // Stops whatever did start, also when a later step of the setup failed.
  const close = async () => {
    await control?.close();
    service?.close();
    await core?.close(0);
    await sim.close();
  };
  try {
    core = createCore({
      servers: sim.serverConfigs(),
      listen: { port: 0 },
      probeIntervalMs: 200,
    });
    const coreUrl = (await core.start()).url;
    service = createCoreService(core, { batchMs: 50 });
    const rendererDir = mkdtempSync(join(tmpdir(), 'peerscope-renderer-'));
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Peerscope</title>');
    control = await startUiServer({ service: service, rendererDir });
    return { sim, core, service, control, coreUrl, close };
  } catch (error) {
    await close();
    throw error;
  }
}
