// What `peerscope audit` judges by: each server's own discovery read now the way the engine reads it
// (cluster/server-set.ts: a probe for the release, then the discovery with its fallbacks), or a routing
// snapshot file, or nothing.
import { serversFromKubeconfig } from '../../engine/cluster/from-kubeconfig.js';
import { ServerSet } from '../../engine/cluster/server-set.js';
import type { ServerConfig } from '../../engine/cluster/server-config.js';
import { judgeByServers, judgeBySnapshot, NO_JUDGEMENT, type AuditJudgement, type JudgeServer } from '../../engine/audit/index.js';
import { readSnapshotFile } from '../../engine/snapshot/index.js';
import { InputError } from '../../engine/util/input-error.js';
import { serversFromFlags, type ServerFlags } from './server-flags.js';

export interface JudgeFlags extends ServerFlags {
  kubeconfig?: string;
  context?: string;
  snapshot?: string;
}

/** Throws an InputError that names the flag or file at fault (a kubeconfig, a snapshot). */
export async function judgementOf(flags: JudgeFlags, warn: (line: string) => void): Promise<AuditJudgement> {
  const live = flags.kubeconfig !== undefined || flags.context !== undefined || flags.server.length > 0;
  if (flags.snapshot && live) throw new InputError('--snapshot', 'judges offline: give it without --kubeconfig, --context or --server');
  if (flags.snapshot) return judgeBySnapshot(readSnapshotFile(flags.snapshot), flags.snapshot);
  if (!live) return NO_JUDGEMENT;
  if (flags.kubeconfig !== undefined || flags.context !== undefined) {
    const found = await serversFromKubeconfig({
      ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}),
      ...(flags.context ? { context: flags.context } : {}),
      overrides: flags.server,
    });
    for (const w of found.warnings) warn(`warning: ${w}`);
    return judgeByServers('kubeconfig', await readDiscovery(found.servers), new Date(), found.kubeconfig.contextName);
  }
  return judgeByServers('servers', await readDiscovery(serversFromFlags(flags).servers), new Date());
}

async function readDiscovery(servers: readonly ServerConfig[]): Promise<JudgeServer[]> {
  const serverSet = new ServerSet(servers, { timeoutMs: 5_000 });
  try {
    await Promise.all(
      serverSet.names().map(async (name) => {
        await serverSet.probe(name);
        await serverSet.refreshDiscovery(name);
      }),
    );
    return serverSet.names().map((name) => {
      const status = serverSet.status(name);
      const discovery = serverSet.discovery(name);
      const error = status?.discovery.error ?? status?.lastError;
      const config = serverSet.config(name);
      const url = config?.url;
      return {
        name,
        ...(config?.hostname ? { hostname: config.hostname } : {}),
        ...(url ? { url } : {}),
        ...(status?.gitVersion ? { gitVersion: status.gitVersion } : {}),
        ...(discovery ? { gvrs: discovery.gvrs, excludedGroupVersions: discovery.excludedGroupVersions } : {}),
        ...(!discovery && error ? { error } : {}),
      };
    });
  } finally {
    await serverSet.close();
  }
}
