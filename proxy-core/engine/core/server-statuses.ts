// Each server's status as the core reports it: beside a server's own reroute counters (its own Mixed
// Version Proxy), what Peerscope rerouted away from it and to it.
import type { ServerStatus } from '../../contract/servers.js';
import type { Telemetry } from '../telemetry/telemetry.js';

export function withPeerscopeReroutes(statuses: ServerStatus[], telemetry: Telemetry): ServerStatus[] {
  if (!statuses.some((s) => s.ownMvp)) return statuses;
  const away = new Map<string, number>();
  const here = new Map<string, number>();
  for (const r of telemetry.counterRows()) {
    if (r.outcome !== 'rerouted') continue;
    away.set(r.handling, (away.get(r.handling) ?? 0) + r.count);
    here.set(r.answeredBy, (here.get(r.answeredBy) ?? 0) + r.count);
  }
  return statuses.map((s) =>
    s.ownMvp
      ? { ...s, ownMvp: { ...s.ownMvp, peerscope: { reroutedAway: away.get(s.name) ?? 0, reroutedHere: here.get(s.name) ?? 0 } } }
      : s,
  );
}
