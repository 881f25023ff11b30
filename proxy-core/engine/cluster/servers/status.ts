// One server's status as the set reports it (contract/servers.ts): what its membership, health probes,
// discovery cache and own-MVP poll each know of it, put together under the name a person reads.
import type { OwnMvp } from '../../../contract/own-mvp.js';
import type { ServerMetrics } from '../../../contract/server-metrics.js';
import type { ServerStatus } from '../../../contract/servers.js';
import { redactProxy } from '../../upstream/proxy-config.js';
import type { CachedDiscovery } from './discovery-cache.js';
import type { ServerHealth } from './health-probe.js';
import type { Member } from './membership.js';

export interface StatusParts {
  readonly name: string;
  readonly displayName: string;
  readonly member: Member;
  readonly health: ServerHealth;
  readonly discovery: CachedDiscovery | undefined;
  readonly ownMvp: OwnMvp | undefined;
  readonly apiserverMetrics: ServerMetrics | undefined;
}

export function serverStatus({ name, displayName, member, health: h, discovery, ownMvp, apiserverMetrics }: StatusParts): ServerStatus {
  const { config, gone } = member;
  const d = discovery?.document;
  const error = discovery?.error;
  return {
    name,
    displayName,
    url: config.url,
    source: config.source ?? 'flag',
    health: h.health,
    failingChecks: [...h.failingChecks],
    ...(h.gitVersion ? { gitVersion: h.gitVersion } : {}),
    ...(h.latencyMs !== undefined ? { latencyMs: Math.round(h.latencyMs * 100) / 100 } : {}),
    ...(h.lastProbeAt ? { lastProbeAt: h.lastProbeAt } : {}),
    ...(h.lastError ? { lastError: h.lastError } : {}),
    ...(h.health === 'unreachable' && h.unreachable ? { unreachable: { ...h.unreachable } } : {}),
    ...(config.proxy ? { proxy: redactProxy(new URL(config.proxy)) } : {}),
    ...(gone ? { gone } : {}),
    discovery: {
      state: d ? (error ? 'stale' : 'ok') : 'none',
      ...(d ? { source: d.source, fetchedAt: d.fetchedAt, changedAt: d.changedAt } : {}),
      gvrCount: d?.gvrs.length ?? 0,
      ...(error ? { error } : {}),
    },
    ...(ownMvp ? { ownMvp } : {}),
    ...(apiserverMetrics ? { apiserverMetrics } : {}),
  };
}
