// Electron main: composition only. Every decision lives in electron/shell/* (unit-tested with Electron
// stubbed) and proxy-core; this file hands them the real Electron objects.
import { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, protocol, session, shell } from 'electron';
import { join } from 'node:path';
import {
  createRecordingsLibrary,
  createSwitchingService,
  fixHeapGrowth,
  kubeconfigContextNames,
  prepareClusterSession,
  readSnapshotFile,
  startDemoSession,
  writeSnapshotFile,
  type ClusterSession,
  type DemoSession,
} from '../proxy-core/hosts/index.js';
import { createAppController, type AppDialogs, type AppSession } from './shell/app-controller.js';
import { prepareWebhookSetup } from './shell/audit-webhook-setup.js';
import { startShell } from './shell/app-shell.js';
import { registerCoreIpc } from './shell/core-ipc.js';
import { faithfulFromArgv, portSettingsFromArgv } from './shell/port-settings.js';
import { serverRefreshFromArgv, type ServerRefreshSetting } from './shell/server-refresh.js';

const service = createSwitchingService();
// Every session records into the app's data folder, under the retention cap the Recordings screen sets.
let library: ReturnType<typeof createRecordingsLibrary>;

// What the port refuses, from the app's command line; the same for every session the app runs.
let filters: ReturnType<typeof portSettingsFromArgv>;
// --faithful: every session answers as the servers' own MVP (rule P8 off).
let faithful: boolean;
// How often a kubeconfig cluster's apiservers are found again (--server-refresh, or its old name).
let serverRefresh: ServerRefreshSetting;
try {
  // The port runs in this process: the same garbage-collector setting as the CLI's.
  fixHeapGrowth();
  filters = portSettingsFromArgv(process.argv);
  faithful = faithfulFromArgv(process.argv);
  serverRefresh = serverRefreshFromArgv(process.argv);
  for (const note of serverRefresh.notes) process.stderr.write(`peerscope: ${note}\n`);
  library = createRecordingsLibrary({
    service,
    folder: join(app.getPath('userData'), 'recordings'),
    // Only a file the operator picked in the main process's dialog is read; it is copied into the folder.
    chooseFile: () =>
      dialogs.openFile({
        title: 'Open recording',
        filters: [
          { name: 'Peerscope recording', extensions: ['sqlite'] },
          { name: 'All files', extensions: ['*'] },
        ],
      }),
  });
} catch (err) {
  process.stderr.write(`peerscope: ${(err as Error).message}\n`);
  app.exit(2);
  throw err;
}

const recordingErrors = { onError: (err: Error) => process.stderr.write(`peerscope: recording: ${err.message}\n`) };
const demoSession = async (): Promise<AppSession> =>
  asAppSession(
    await startDemoSession({
      rolloutAfterSeconds: 15,
      anyPortIfBusy: true,
      filters,
      faithful,
      record: { file: library.newRecordingFile('demo'), ...recordingErrors },
    }),
    'simulated cluster',
  );
const asAppSession = (s: DemoSession | ClusterSession, label: string): AppSession => ({
  service: s.service,
  label,
  portUrl: s.address.url,
  close: () => s.close(),
});

const dialogs: AppDialogs = {
  async openFile(options) {
    const r = await dialog.showOpenDialog({ title: options.title, filters: options.filters, properties: ['openFile', 'showHiddenFiles'] });
    return r.canceled ? undefined : r.filePaths[0];
  },
  async saveFile(options) {
    const r = await dialog.showSaveDialog(options);
    return r.canceled ? undefined : r.filePath;
  },
  async chooseFolder(options) {
    const r = await dialog.showOpenDialog({ title: options.title, properties: ['openDirectory', 'createDirectory'] });
    return r.canceled ? undefined : r.filePaths[0];
  },
  async choose(options) {
    return (await dialog.showMessageBox({ type: 'question', noLink: true, ...options })).response;
  },
  error: (title, message) => dialog.showErrorBox(title, message),
  info: (title, message) => void dialog.showMessageBox({ type: 'info', title, message }),
};

const controller = createAppController({
  service,
  startDemo: demoSession,
  async prepareCluster(kubeconfig, context, source) {
    const prepared = await prepareClusterSession({
      kubeconfig,
      anyPortIfBusy: true,
      filters,
      faithful,
      ...(serverRefresh.intervalMs !== undefined ? { serverRefreshIntervalMs: serverRefresh.intervalMs } : {}),
      ...(context ? { context } : {}),
      record: { file: (contextName: string) => library.newRecordingFile(contextName), ...recordingErrors },
      // The cluster source the menu chose (Open audit log…, Receive audit events…).
      ...(source?.auditLogs?.length ? { auditLogs: source.auditLogs } : {}),
      ...(source?.auditFollow !== undefined ? { auditFollow: source.auditFollow } : {}),
      ...(source?.auditWebhook ? { auditWebhook: source.auditWebhook } : {}),
    });
    if (prepared.warnings.length > 0) dialogs.info(`Context ${prepared.contextName}`, prepared.warnings.join('\n'));
    return async () => asAppSession(await prepared.start(), `context ${prepared.contextName}`);
  },
  prepareWebhook: prepareWebhookSetup,
  // The window's taskbar/dock progress bar: a fraction, indeterminate (above 1) without a size, removed (below 0).
  setProgress: (progress) => {
    for (const w of BrowserWindow.getAllWindows()) w.setProgressBar(progress ? (progress.fraction ?? 2) : -1);
  },
  contextNames: kubeconfigContextNames,
  readSnapshot: readSnapshotFile,
  writeSnapshot: writeSnapshotFile,
  dialogs,
  copyText: (text) => clipboard.writeText(text),
  setMenu: (template) => Menu.setApplicationMenu(Menu.buildFromTemplate(template)),
  platform: process.platform,
  devTools: !app.isPackaged,
});

void startShell({
  app,
  protocol,
  defaultSession: () => session.defaultSession,
  openExternal: (url) => shell.openExternal(url),
  createWindow: (options) => new BrowserWindow(options),
  preloadPath: join(__dirname, 'preload.cjs'),
  rendererDir: join(__dirname, '..', 'renderer'),
  async onWindow() {
    registerCoreIpc(ipcMain, library.service);
    await controller.start();
  },
})
  .then((started) => {
    if (!started.started) return;
    // The port and the simulated servers are closed before the process leaves.
    let closed = false;
    app.on('will-quit', (event) => {
      if (closed) return;
      event.preventDefault();
      void controller.close().finally(() => {
        closed = true;
        app.quit();
      });
    });
  })
  .catch((err: unknown) => {
    dialog.showErrorBox('Peerscope could not start', err instanceof Error ? err.message : String(err));
    app.exit(1);
  });
