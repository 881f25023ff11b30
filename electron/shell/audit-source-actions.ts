// The menu's cluster-source actions on a kubeconfig's cluster: open a server's audit log (read once or
// followed) and receive the servers' audit webhook. Each restarts the session with the source added.
import {
  AUDIT_WEBHOOK_PORT,
  MAX_CONTEXT_BUTTONS,
  type AppControllerDeps,
  type AppDialogs,
  type ClusterSourceChoice,
  type OpenedCluster,
} from './app-deps.js';
import type { WebhookSetupRequest } from './audit-webhook-setup.js';
import type { MenuActions } from './menu.js';
import type { SessionSwitcher } from './session-switcher.js';

interface ServerName {
  readonly name: string;
  readonly displayName?: string;
}

export function auditSourceActions(
  deps: AppControllerDeps,
  switcher: SessionSwitcher,
): Pick<MenuActions, 'openAuditLog' | 'receiveAuditEvents'> {
  const { service, dialogs } = deps;

  /** The kubeconfig cluster shown, or a box saying why the action needs one. */
  const requireCluster = (title: string): OpenedCluster | undefined => {
    const opened = switcher.opened();
    if (!opened)
      dialogs.info(
        title,
        "The simulated cluster's servers write audit logs of their own, which Peerscope follows already (Live routing, Cluster). To read a real cluster's, open its kubeconfig first (File → Open kubeconfig…).",
      );
    return opened;
  };
  const serversNow = async (): Promise<ServerName[]> =>
    (await service.getOverview()).servers.map((s) => ({ name: s.name, ...(s.displayName ? { displayName: s.displayName } : {}) }));
  /** The servers are found again before the running session gives up the port. */
  const restartWith = async (cluster: OpenedCluster, source: ClusterSourceChoice) => {
    const start = await deps.prepareCluster(cluster.kubeconfig, cluster.context, source);
    await switcher.switchTo(start, { ...cluster, source });
  };

  const openAuditLog = async () => {
    const cluster = requireCluster('Open audit log');
    if (!cluster) return;
    const file = await dialogs.openFile({
      title: 'Open audit log',
      filters: [
        { name: 'Audit log', extensions: ['log', 'gz', 'json'] },
        { name: 'All files', extensions: ['*'] },
      ],
    });
    if (!file) return;
    const servers = await serversNow();
    const server = serverOfFile(file, servers) ?? (await askServer(dialogs, file, servers));
    if (!server) return;
    const how = await dialogs.choose({
      title: 'Open audit log',
      message: `Read ${basename(file)} once (a log of the past, with a progress bar), or follow it as ${displayOf(server, servers)} writes it?`,
      buttons: ['Read it once', 'Follow it', 'Cancel'],
      defaultId: 0,
      cancelId: 2,
    });
    if (how === 2) return;
    await restartWith(cluster, {
      ...cluster.source,
      auditLogs: [...(cluster.source.auditLogs ?? []).filter((l) => l.file !== file), { server, file }],
      auditFollow: how === 1,
    });
  };

  const receiveAuditEvents = async () => {
    const title = 'Receive audit events';
    const cluster = requireCluster(title);
    if (!cluster) return;
    const receiver = await askReceiver(dialogs, title);
    if (!receiver) return;
    const folder = await dialogs.chooseFolder({ title: "Where to write each apiserver's webhook kubeconfig and token" });
    if (!folder) return;
    const servers = await serversNow();
    const setup = await deps.prepareWebhook({ ...receiver, port: AUDIT_WEBHOOK_PORT, servers, folder });
    await restartWith(cluster, { ...cluster.source, auditWebhook: setup.options });
    dialogs.info(
      title,
      [
        `Peerscope receives audit events on ${setup.url}`,
        "Start each apiserver with --audit-webhook-config-file set to its file (copy it to the server's machine as it is):",
        ...setup.kubeconfigs.map((k) => `${displayOf(k.server, servers)}: ${k.file}`),
      ].join('\n'),
    );
  };

  return {
    openAuditLog: () => void openAuditLog().catch(switcher.showError('Could not open the audit log')),
    receiveAuditEvents: () => void receiveAuditEvents().catch(switcher.showError('Could not receive audit events')),
  };
}

/** Asks which server wrote the file; undefined when cancelled. */
async function askServer(dialogs: AppDialogs, file: string, servers: readonly ServerName[]): Promise<string | undefined> {
  if (servers.length === 0 || servers.length > MAX_CONTEXT_BUTTONS)
    throw new Error(
      `${basename(file)} names none of the ${servers.length} servers: name the file after the server that wrote it (its host name or identity)`,
    );
  const choice = await dialogs.choose({
    title: 'Open audit log',
    message: `Which apiserver wrote ${basename(file)}?`,
    buttons: [...servers.map((s) => s.displayName ?? s.name), 'Cancel'],
    defaultId: 0,
    cancelId: servers.length,
  });
  return servers[choice]?.name;
}

/** Where the receiver listens and with which certificate, as the operator chooses; undefined when cancelled. */
async function askReceiver(dialogs: AppDialogs, title: string): Promise<Pick<WebhookSetupRequest, 'host' | 'tls'> | undefined> {
  const where = await dialogs.choose({
    title,
    message: "Where should Peerscope listen for the apiservers' audit events (kube-apiserver --audit-webhook-config-file)?",
    buttons: [
      `Every interface, port ${AUDIT_WEBHOOK_PORT} (apiservers on other machines)`,
      `This machine only (127.0.0.1:${AUDIT_WEBHOOK_PORT})`,
      'Cancel',
    ],
    defaultId: 0,
    cancelId: 2,
  });
  if (where === 2) return undefined;
  const how = await dialogs.choose({
    title,
    message: 'Its TLS certificate: one Peerscope generates (its CA goes into each webhook kubeconfig), or yours?',
    buttons: ['Generate one', 'Use my certificate and key…', 'Cancel'],
    defaultId: 0,
    cancelId: 2,
  });
  if (how === 2) return undefined;
  const host = where === 0 ? '0.0.0.0' : '127.0.0.1';
  if (how === 0) return { host };
  const pem = [{ name: 'PEM', extensions: ['crt', 'pem', 'key'] }];
  const certFile = await dialogs.openFile({ title: 'Serving certificate (PEM)', filters: pem });
  if (!certFile) return undefined;
  const keyFile = await dialogs.openFile({ title: 'Its private key (PEM)', filters: pem });
  if (!keyFile) return undefined;
  return { host, tls: { certFile, keyFile } };
}

export function basename(file: string): string {
  return file.split(/[\\/]/).pop() ?? file;
}

const displayOf = (server: string, servers: readonly ServerName[]) => servers.find((s) => s.name === server)?.displayName ?? server;

/**
 * The one server whose identity or host name the file's name or its folder's name holds as a word
 * (`kube-old-audit.log`, `/var/log/apiserver-b/audit.log`), as `peerscope audit` matches them; else undefined.
 */
export function serverOfFile(file: string, servers: readonly ServerName[]): string | undefined {
  const parts = file.split(/[\\/]/);
  const names = [parts.at(-1) ?? '', parts.at(-2) ?? ''];
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const holds = (word: string) => {
    const re = new RegExp(`(^|[^A-Za-z0-9])${escape(word)}($|[^A-Za-z0-9])`);
    return names.some((n) => re.test(n));
  };
  const matches = servers.filter((s) => holds(s.name) || (s.displayName !== undefined && holds(s.displayName)));
  return matches.length === 1 ? matches[0]!.name : undefined;
}
