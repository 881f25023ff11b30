// What `peerscope serve` says on the terminal while it runs: each server as the port starts, the
// servers that join, leave or move, the set's notices, and the refreshes' warnings.
import { shownName } from '../../contract/servers.js';
import { reachabilityLines } from '../../engine/cluster/reachability.js';
import type { Core, ServerRefresh } from '../../engine/core.js';
import { canonicalRelease } from '../../engine/releases/index.js';

/** Each server's state once the port listens, its own MVP's verdict where known, and who is out of reach. */
export function logServers(core: Core): void {
  for (const s of core.serverStatuses()) {
    console.error(
      `peerscope: ${namedForLog(s)} ${s.url} ${s.health}${s.gitVersion ? ` ${canonicalRelease(s.gitVersion)}` : ''}, ${s.discovery.gvrCount} GVRs${s.lastError ? ` (${s.lastError})` : ''}`,
    );
  }
  for (const s of core.serverStatuses()) if (s.ownMvp && s.ownMvp.verdict !== 'unknown') console.error(`peerscope: ${s.ownMvp.summary}`);
  for (const line of reachabilityLines(core.serverStatuses())) console.error(`peerscope: ${line}`);
}

/** A line per change of the server list, and the set's notices (e.g. the CRD watch was refused). */
export function logServerChanges(core: Core): void {
  core.servers.on('membership', (id, change) => {
    const s = core.servers.status(id);
    const name = s ? namedForLog(s) : id;
    if (change === 'added') console.error(`peerscope: apiserver ${name} joined: ${s?.url ?? ''} (found by ${s?.source ?? '?'})`);
    else if (change === 'gone')
      console.error(
        `peerscope: apiserver ${name} is gone: ${s?.gone?.reason ?? ''}; never routed to, listed as gone until ${s?.gone ? new Date(s.gone.removeAt).toISOString() : '?'}`,
      );
    else if (change === 'back') console.error(`peerscope: apiserver ${name} is back: ${s?.url ?? ''}`);
    else if (change === 'removed') console.error(`peerscope: apiserver ${name} removed from the list (gone)`);
    else console.error(`peerscope: apiserver ${name} is now at ${s?.url ?? ''}`);
  });
  // E.g. the CRD watch was refused: discovery is then re-read on the period only.
  core.servers.on('notice', (line) => console.error(`peerscope: ${line}`));
}

/** Logs a refresh's warnings when they differ from the last refresh's (a steady RBAC gap is said once). */
export function reportRefresh(): (r: ServerRefresh) => void {
  let last = '';
  return (r) => {
    const lines = r.ok ? r.update.warnings.map((w) => `warning: ${w}`) : [`warning: finding the apiservers again failed: ${r.error}`];
    const text = lines.join('\n');
    if (text && text !== last) for (const l of lines) process.stderr.write(`peerscope: ${l}\n`);
    last = text;
  };
}

/** A server in a log line: its host name, the identity beside it where they differ ("cp-1 (apiserver-fa6…)"). */
function namedForLog(s: { readonly name: string; readonly displayName?: string }): string {
  const shown = shownName(s);
  return shown === s.name ? s.name : `${shown} (${s.name})`;
}
