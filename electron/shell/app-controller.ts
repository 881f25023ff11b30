// What the desktop app does for the operator, with Electron's dialogs, clipboard and menu injected:
// which cluster the core runs on (simulated or a kubeconfig's), the menu's actions, and the menu kept in
// step with the port and the discovery mode. main.ts wires the real Electron objects in; tests, fakes.
import type { MenuItemConstructorOptions } from 'electron';
import type { CoreEvent, DiscoveryMode, RoutingSnapshot } from '../../proxy-core/contract/index.js';
import type { SwitchableSession, SwitchingService } from '../../proxy-core/hosts/index.js';
import type { WebhookSetup, WebhookSetupRequest } from './audit-webhook-setup.js';
import { buildMenuTemplate, type MenuActions } from './menu.js';

/** A running core the app can show: the simulated cluster or a real one. */
export interface AppSession extends SwitchableSession {
  /** The local port kubectl is pointed at. */
  readonly portUrl: string;
  close(): Promise<unknown>;
}

/** What a kubeconfig session reads of the cluster's own traffic (the cluster source), as the menu chose it. */
export interface ClusterSourceChoice {
  /** Each file with the server (identity) that wrote it. */
  readonly auditLogs?: readonly { readonly server: string; readonly file: string }[];
  /** False: the logs are read once, with progress; default: followed. */
  readonly auditFollow?: boolean;
  readonly auditWebhook?: WebhookSetup['options'];
}

/** The progress of a long read, for the window's progress bar: a fraction, or null when it has no size to measure. */
export type ReadProgress = { readonly fraction: number | null } | undefined;

/** The port the audit webhook receiver listens on. */
export const AUDIT_WEBHOOK_PORT = 9443;

export interface AppDialogs {
  /** The chosen file, or undefined when the operator cancelled. */
  openFile(options: { title: string; filters: { name: string; extensions: string[] }[] }): Promise<string | undefined>;
  saveFile(options: { title: string; defaultPath: string; filters: { name: string; extensions: string[] }[] }): Promise<string | undefined>;
  /** The chosen folder, or undefined when the operator cancelled. */
  chooseFolder(options: { title: string }): Promise<string | undefined>;
  /** The index of the chosen button; `cancelId` when the operator closed the box. */
  choose(options: { title: string; message: string; buttons: string[]; defaultId: number; cancelId: number }): Promise<number>;
  error(title: string, message: string): void;
  info(title: string, message: string): void;
}

export interface AppControllerDeps {
  readonly service: SwitchingService;
  readonly startDemo: () => Promise<AppSession>;
  /**
   * Loads the kubeconfig and finds the cluster's servers (errors here leave the running session alone);
   * the result starts the port, reading the cluster source chosen (audit logs, a webhook receiver).
   */
  readonly prepareCluster: (
    kubeconfig: string,
    context: string | undefined,
    source?: ClusterSourceChoice,
  ) => Promise<() => Promise<AppSession>>;
  /** Writes each server's webhook kubeconfig and token, and makes the receiver's settings (audit-webhook-setup.ts). */
  readonly prepareWebhook: (request: WebhookSetupRequest) => Promise<WebhookSetup>;
  /** Shows a long read's progress on the window (its taskbar or dock entry); undefined removes it. */
  readonly setProgress?: (progress: ReadProgress) => void;
  /** How often a read under way is asked how far it is (default 500 ms). */
  readonly progressIntervalMs?: number;
  readonly contextNames: (kubeconfig: string) => { names: string[]; current?: string };
  readonly readSnapshot: (file: string) => RoutingSnapshot;
  readonly writeSnapshot: (file: string, snapshot: RoutingSnapshot) => void;
  readonly dialogs: AppDialogs;
  readonly copyText: (text: string) => void;
  readonly setMenu: (template: MenuItemConstructorOptions[]) => void;
  readonly platform: NodeJS.Platform;
  readonly devTools: boolean;
}

/** More contexts than this are not offered as buttons; the current context is used, and the box says so. */
const MAX_CONTEXT_BUTTONS = 8;

export interface AppController {
  readonly actions: MenuActions;
  /** Starts the simulated cluster (what the app shows on first start) and builds the menu. */
  start(): Promise<void>;
  /** Closes the current session. */
  close(): Promise<void>;
}

export function createAppController(deps: AppControllerDeps): AppController {
  const { service, dialogs } = deps;
  let discoveryMode: DiscoveryMode = 'peer-aggregated';
  let switching: Promise<void> = Promise.resolve();
  /** The kubeconfig cluster the app shows, and the cluster source chosen for it; undefined on the simulated cluster. */
  let opened: OpenedCluster | undefined;
  let auditReading = false;
  let progressTimer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const session = () => service.current() as AppSession | undefined;
  const refreshMenu = () => {
    deps.setMenu(
      buildMenuTemplate(
        { portAddress: session()?.portUrl, discoveryMode, platform: deps.platform, devTools: deps.devTools, auditReading },
        actions,
      ),
    );
  };

  /** Follows a read of audit log files while it runs: the window's progress bar and the menu's Cancel. */
  const watchAuditRead = () => {
    clearTimeout(progressTimer);
    const tick = async () => {
      let read: NonNullable<Awaited<ReturnType<typeof service.getOverview>>['cluster']>['read'];
      try {
        read = (await service.getOverview()).cluster?.read;
      } catch {
        read = undefined;
      }
      if (closed) return;
      const reading = read?.state === 'reading';
      deps.setProgress?.(reading ? { fraction: read?.bytesTotal ? Math.min(1, read.bytesRead / read.bytesTotal) : null } : undefined);
      if (reading !== auditReading) {
        auditReading = reading;
        refreshMenu();
      }
      if (reading) progressTimer = setTimeout(() => void tick(), deps.progressIntervalMs ?? 500);
    };
    void tick();
  };
  const showError = (title: string) => (err: unknown) => dialogs.error(title, err instanceof Error ? err.message : String(err));

  // The menu's checkbox follows the mode whoever changed it (menu, UI, another client of the core).
  const onEvent = (e: CoreEvent) => {
    if (e.type === 'settings' && e.settings.discoveryMode !== discoveryMode) {
      discoveryMode = e.settings.discoveryMode;
      refreshMenu();
    }
  };

  /** One switch at a time: the new session must own the port the old one gives up. `cluster`: what it shows (none: the simulated one). */
  const switchTo = (start: () => Promise<AppSession>, cluster?: OpenedCluster): Promise<void> => {
    switching = switching.then(async () => {
      const previous = session();
      // The port (default 8001) is held by the running session: close it first, then start the next.
      // If the next fails, the operator is told and the app comes back to the simulated cluster.
      if (previous) await previous.close();
      let next: AppSession;
      try {
        next = await start();
        opened = cluster;
      } catch (err) {
        if (!previous) throw err;
        showError('Could not open the cluster')(err);
        next = await deps.startDemo();
        opened = undefined;
      }
      service.switchTo(next);
      discoveryMode = (await next.service.getOverview()).discoveryMode;
      refreshMenu();
      watchAuditRead();
    });
    return switching;
  };

  /** The kubeconfig cluster shown, or a box saying why the action needs one. */
  const requireCluster = (title: string): OpenedCluster | undefined => {
    if (!opened)
      dialogs.info(
        title,
        "The simulated cluster's servers write audit logs of their own, which Peerscope follows already (Live routing, Cluster). To read a real cluster's, open its kubeconfig first (File → Open kubeconfig…).",
      );
    return opened;
  };
  const serversNow = async () =>
    (await service.getOverview()).servers.map((s) => ({ name: s.name, ...(s.displayName ? { displayName: s.displayName } : {}) }));
  /** Asks which server wrote the file; undefined when cancelled. */
  const askServer = async (file: string, servers: readonly ServerName[]): Promise<string | undefined> => {
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
  };

  const actions: MenuActions = {
    openKubeconfig() {
      void (async () => {
        const file = await dialogs.openFile({ title: 'Open kubeconfig', filters: [{ name: 'kubeconfig', extensions: ['*'] }] });
        if (!file) return;
        const { names, current } = deps.contextNames(file);
        let context: string | undefined;
        if (names.length > 1 && names.length <= MAX_CONTEXT_BUTTONS) {
          const defaultId = Math.max(0, names.indexOf(current ?? ''));
          const cancelId = names.length;
          const choice = await dialogs.choose({
            title: 'Choose context',
            message: `Which context of ${file}?`,
            buttons: [...names, 'Cancel'],
            defaultId,
            cancelId,
          });
          if (choice === cancelId) return;
          context = names[choice];
        }
        // Checked before the running session gives up the port: a broken kubeconfig or an unreachable
        // cluster leaves the operator where they were, with the error that names the file and line.
        const start = await deps.prepareCluster(file, context);
        await switchTo(start, { kubeconfig: file, context, source: {} });
      })().catch(showError('Could not open the kubeconfig'));
    },
    startSimulatedCluster() {
      switchTo(() => deps.startDemo()).catch(showError('Could not start the simulated cluster'));
    },
    exportSnapshot() {
      void (async () => {
        const snapshot = await service.takeSnapshot();
        const stamp = snapshot.takenAt.replace(/[:.]/g, '-');
        const file = await dialogs.saveFile({
          title: 'Export routing snapshot',
          defaultPath: `peerscope-snapshot-${stamp}.json`,
          filters: [{ name: 'Routing snapshot', extensions: ['json'] }],
        });
        if (!file) return;
        deps.writeSnapshot(file, snapshot);
      })().catch(showError('Could not export the snapshot'));
    },
    importSnapshot() {
      void (async () => {
        const file = await dialogs.openFile({
          title: 'Import routing snapshot',
          filters: [{ name: 'Routing snapshot', extensions: ['json'] }],
        });
        if (!file) return;
        // Validated completely here; the window only ever receives a whole, valid snapshot.
        const snapshot = deps.readSnapshot(file);
        service.publish({ type: 'snapshot-opened', file: basename(file), snapshot });
      })().catch(showError('Could not import the snapshot'));
    },
    openAuditLog() {
      void (async () => {
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
        const server = serverOfFile(file, servers) ?? (await askServer(file, servers));
        if (!server) return;
        const how = await dialogs.choose({
          title: 'Open audit log',
          message: `Read ${basename(file)} once (a log of the past, with a progress bar), or follow it as ${displayOf(server, servers)} writes it?`,
          buttons: ['Read it once', 'Follow it', 'Cancel'],
          defaultId: 0,
          cancelId: 2,
        });
        if (how === 2) return;
        const source: ClusterSourceChoice = {
          ...cluster.source,
          auditLogs: [...(cluster.source.auditLogs ?? []).filter((l) => l.file !== file), { server, file }],
          auditFollow: how === 1,
        };
        // The servers are found again before the running session gives up the port.
        const start = await deps.prepareCluster(cluster.kubeconfig, cluster.context, source);
        await switchTo(start, { ...cluster, source });
      })().catch(showError('Could not open the audit log'));
    },
    receiveAuditEvents() {
      void (async () => {
        const title = 'Receive audit events';
        const cluster = requireCluster(title);
        if (!cluster) return;
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
        if (where === 2) return;
        const how = await dialogs.choose({
          title,
          message: 'Its TLS certificate: one Peerscope generates (its CA goes into each webhook kubeconfig), or yours?',
          buttons: ['Generate one', 'Use my certificate and key…', 'Cancel'],
          defaultId: 0,
          cancelId: 2,
        });
        if (how === 2) return;
        let tls: WebhookSetupRequest['tls'];
        if (how === 1) {
          const pem = [{ name: 'PEM', extensions: ['crt', 'pem', 'key'] }];
          const certFile = await dialogs.openFile({ title: 'Serving certificate (PEM)', filters: pem });
          if (!certFile) return;
          const keyFile = await dialogs.openFile({ title: 'Its private key (PEM)', filters: pem });
          if (!keyFile) return;
          tls = { certFile, keyFile };
        }
        const folder = await dialogs.chooseFolder({ title: "Where to write each apiserver's webhook kubeconfig and token" });
        if (!folder) return;
        const servers = await serversNow();
        const setup = await deps.prepareWebhook({
          host: where === 0 ? '0.0.0.0' : '127.0.0.1',
          port: AUDIT_WEBHOOK_PORT,
          ...(tls ? { tls } : {}),
          servers,
          folder,
        });
        const source: ClusterSourceChoice = { ...cluster.source, auditWebhook: setup.options };
        const start = await deps.prepareCluster(cluster.kubeconfig, cluster.context, source);
        await switchTo(start, { ...cluster, source });
        dialogs.info(
          title,
          [
            `Peerscope receives audit events on ${setup.url}`,
            "Start each apiserver with --audit-webhook-config-file set to its file (copy it to the server's machine as it is):",
            ...setup.kubeconfigs.map((k) => `${displayOf(k.server, servers)}: ${k.file}`),
          ].join('\n'),
        );
      })().catch(showError('Could not receive audit events'));
    },
    cancelAuditRead() {
      service.cancelAuditRead().then(() => watchAuditRead(), showError('Could not cancel the read'));
    },
    toggleDiscoveryMode() {
      const next = discoveryMode === 'peer-aggregated' ? 'nopeer' : 'peer-aggregated';
      service.setDiscoveryMode({ mode: next }).then((s) => {
        discoveryMode = s.discoveryMode;
        refreshMenu();
      }, showError('Could not change the discovery mode'));
    },
    copyPortAddress() {
      const url = session()?.portUrl;
      if (url) deps.copyText(url);
    },
  };

  let unsubscribe: (() => void) | undefined;
  return {
    actions,
    async start() {
      unsubscribe = service.subscribe(onEvent);
      refreshMenu();
      await switchTo(() => deps.startDemo());
    },
    async close() {
      closed = true;
      clearTimeout(progressTimer);
      deps.setProgress?.(undefined);
      unsubscribe?.();
      await switching.catch(() => undefined);
      await session()?.close();
    },
  };
}

function basename(file: string): string {
  return file.split(/[\\/]/).pop() ?? file;
}

interface OpenedCluster {
  readonly kubeconfig: string;
  readonly context: string | undefined;
  readonly source: ClusterSourceChoice;
}

interface ServerName {
  readonly name: string;
  readonly displayName?: string;
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
