// What `peerscope serve` runs (serve.ts registers it): what it reads first is serve-inputs.ts's,
// what it says as it runs serve-log.ts's.
import { ServerNames } from '../../engine/cluster/server-names.js';
import { resolveWebhookTokens } from '../../engine/audit/webhook/senders.js';
import type { ServerConfig } from '../../engine/cluster/server-config.js';
import { createCore } from '../../engine/core.js';
import { auditWebhookOf, webhookProblemLog } from './audit-webhook-flags.js';
import { portFilters } from './port-filter-options.js';
import { checkNewRecording } from './new-recording.js';
import { serverRefreshOf, type ServeFlags } from './serve-flags.js';
import { auditInputsOf, policyOf, serveTargets } from './serve-inputs.js';
import { logServerChanges, logServers, reportRefresh } from './serve-log.js';
import { onShutdown } from './options.js';
import { fail, listenWords } from './usage.js';

/** Reads the inputs, starts the port (and the UI when asked), and closes both on a signal. */
export async function serve(flags: ServeFlags, serverRefreshGiven: boolean): Promise<void> {
  const serverRefresh = serverRefreshOf(flags, serverRefreshGiven);
  const { servers, context, ownIdentity, serverSource } = await serveTargets(flags);
  const auditLogs = await auditInputsOf(flags.auditLog, servers);
  const tokens = resolveWebhookTokens(flags.auditWebhookToken, servers);
  // A client certificate's common name must name a server known at the time it posts (servers join).
  let knownServers = (): readonly ServerConfig[] => servers;
  const auditWebhook = await auditWebhookOf({ ...flags, auditWebhookToken: tokens.specs }, () => knownServers()).catch((err: Error) =>
    fail(err.message),
  );
  for (const name of tokens.unknown)
    process.stderr.write(
      `peerscope: warning: --audit-webhook-token ${name}: no server is named so now (servers: ${new ServerNames(servers).known()}); its events are counted as not judged until one is\n`,
    );
  const policy = policyOf(flags.policy, servers);
  if (flags.record) checkNewRecording(flags.record, fail);
  const core = createCore({
    ...(flags.record
      ? { record: { file: flags.record, host: 'serve', onError: (err) => console.error(`peerscope: ${err.message}`) } }
      : {}),
    servers,
    listen: flags.listen,
    policy,
    discoveryMode: flags.discovery,
    faithful: flags.faithful,
    maxEvents: flags.maxEvents,
    ownMetricsIntervalMs: flags.serverMetrics * 1000,
    upstream: { connectTimeoutMs: flags.upstreamConnectTimeout * 1000, headersTimeoutMs: flags.upstreamHeadersTimeout * 1000 },
    ...portFilters(flags),
    ...(auditLogs.length > 0 ? { auditLogs, onAuditProblem: (line: string) => process.stderr.write(`${line}\n`) } : {}),
    ...(auditWebhook
      ? {
          auditWebhook: { ...auditWebhook, onProblem: webhookProblemLog((line) => process.stderr.write(line)) },
        }
      : {}),
    snapshotSource: context ? 'kubeconfig' : 'servers',
    ...(ownIdentity ? { ownIdentity } : {}),
    ...(context ? { context } : {}),
    ...(serverSource ? { serverSource, serverRefreshIntervalMs: serverRefresh * 1000, onServerRefresh: reportRefresh() } : {}),
  });
  knownServers = () => core.servers.names().flatMap((n) => core.servers.config(n) ?? []);
  logServerChanges(core);
  let address;
  try {
    address = await core.start();
  } catch (err) {
    await core.close(0);
    fail(listenWords(flags.listen, err));
  }
  console.log(`Starting to serve on ${address.host}:${address.port}`);
  if (flags.record) console.error(`peerscope: recording to ${flags.record}`);
  const webhookUrl = core.auditWebhookUrl();
  if (webhookUrl) console.error(`peerscope: receiving audit events on ${webhookUrl}`);
  logServers(core);
  // The UI server and its service only with --ui: an idle port without them is smaller.
  const ui = flags.ui ? await (await import('./ui.js')).startUiHost({ core }) : undefined;
  if (ui) console.log(`UI: ${ui.url}`);
  onShutdown(async () => {
    await ui?.close();
    await core.close();
  });
}
