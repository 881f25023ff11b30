// A stand-in for the Electron runtime, so the built main process (dist/electron/main.cjs) runs under
// plain Node in a test: `node --require <this> main.cjs`. It answers `require('electron')` with fakes
// that record what main did, then plays a renderer: once the window loads, it calls the IPC handlers
// the way the preload would and prints one JSON line per observation on stdout ("fake-electron: {...}").
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- loaded with `node --require`, before any ESM */
const Module = require('node:module');
const { EventEmitter } = require('node:events');

const report = (kind, data) => process.stdout.write(`fake-electron: ${JSON.stringify({ kind, ...data })}\n`);
const handlers = new Map();
const app = new EventEmitter();
Object.assign(app, {
  isPackaged: false,
  // The test gives the data folder; the app keeps its recordings under it.
  getPath: (name) => {
    if (name !== 'userData' || !process.env.FAKE_ELECTRON_USER_DATA) throw new Error(`fake-electron: no path for ${name}`);
    return process.env.FAKE_ELECTRON_USER_DATA;
  },
  enableSandbox: () => report('sandbox', {}),
  requestSingleInstanceLock: () => true,
  whenReady: () => Promise.resolve(),
  quit: () => {
    state.quitAt ??= Date.now();
    const event = {
      defaultPrevented: false,
      preventDefault() {
        this.defaultPrevented = true;
      },
    };
    app.emit('will-quit', event);
    if (!event.defaultPrevented) {
      report('quit', { ms: Date.now() - state.quitAt });
      process.exit(0);
    }
  },
  exit: (code) => process.exit(code),
});

class FakeWebContents extends EventEmitter {
  constructor() {
    super();
    this.id = 1;
    this.sent = [];
  }
  setWindowOpenHandler(handler) {
    this.windowOpenHandler = handler;
  }
  send(channel, payload) {
    this.sent.push({ channel, payload });
  }
  isDestroyed() {
    return false;
  }
}

/** Calls an IPC handler as a frame of `url` would; returns the handler's reply envelope. */
async function invoke(channel, url, ...args) {
  const handler = handlers.get(channel);
  if (!handler) return { missing: channel };
  return handler({ senderFrame: { url }, sender: state.window.webContents }, ...args);
}

const state = { window: undefined };
class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    state.window = this;
    this.webContents = new FakeWebContents();
    report('window', { webPreferences: options.webPreferences });
  }
  async loadURL(url) {
    report('load', { url });
    // Like the page: subscribe, ask for the overview, then try a call from a foreign frame.
    const subscribed = await invoke('peerscope:subscribe', url);
    const overview = await invoke('peerscope:getOverview', url);
    const foreign = await invoke('peerscope:getOverview', 'https://evil.example/');
    const badArgs = await invoke('peerscope:setTrafficRate', url, { rps: 'fast' });
    await new Promise((r) => setTimeout(r, 1_500));
    const events = [...new Set(state.window.webContents.sent.map((m) => m.payload.type))];
    report('renderer', { subscribed, overview, foreign, badArgs, events, channels: [...handlers.keys()] });
    // The Recordings screen: the folder, then a file picked in the open dialog (FAKE_ELECTRON_OPEN_FILE), shown and left.
    const listed = await invoke('peerscope:getRecordings', url);
    const chosen = await invoke('peerscope:chooseRecordingFile', url);
    const recorded = await invoke('peerscope:getOverview', url);
    const readOnly = await invoke('peerscope:setPolicy', url, { policy: 'random' });
    const left = await invoke('peerscope:leaveRecording', url);
    const liveAgain = await invoke('peerscope:getOverview', url);
    report('recordings', { listed, chosen, recorded, readOnly, left, liveAgain });
    // What a web page in the operator's browser gets from the app's port, and a watch left open at quit.
    const portUrl = menuLabels()
      .find((l) => l.startsWith('Local port: '))
      ?.slice('Local port: '.length);
    const status = async (path, init = {}) => (await fetch(`${portUrl}${path}`, init).catch((e) => ({ status: String(e) }))).status;
    report('port', {
      plain: await status('/version'),
      foreignOrigin: await status('/api/v1/namespaces/default/configmaps', {
        method: 'POST',
        headers: { origin: 'https://evil.example', 'content-type': 'text/plain' },
        body: '{}',
      }),
      crossSite: await status('/api/v1/pods', { headers: { 'sec-fetch-site': 'cross-site' } }),
      rejectedMethod: await status('/api/v1/namespaces/default/configmaps/x', { method: 'DELETE' }),
    });
    const watch = new AbortController();
    await fetch(`${portUrl}/api/v1/namespaces/default/configmaps?watch=true`, { signal: watch.signal }).catch(() => undefined);
    setImmediate(() => app.quit());
  }
  static getAllWindows() {
    return state.window ? [state.window] : [];
  }
  setProgressBar(value) {
    this.progress = value;
  }
  show() {}
  focus() {}
  restore() {}
  isMinimized() {
    return false;
  }
}

let menu;
const menuLabels = () => {
  const labels = [];
  const walk = (items) =>
    items.forEach((i) => {
      if (i.label) labels.push(i.label);
      if (Array.isArray(i.submenu)) walk(i.submenu);
    });
  walk(menu ?? []);
  return labels;
};
const electron = {
  app,
  BrowserWindow,
  ipcMain: { handle: (channel, fn) => handlers.set(channel, fn), removeHandler: (channel) => handlers.delete(channel) },
  protocol: {
    registerSchemesAsPrivileged: (schemes) => report('schemes', { schemes }),
    handle: (scheme) => report('protocol', { scheme }),
  },
  session: {
    defaultSession: {
      setPermissionRequestHandler: () => {},
      setPermissionCheckHandler: () => {},
      webRequest: { onBeforeRequest: () => report('request-filter', {}) },
    },
  },
  shell: { openExternal: async () => {} },
  clipboard: { writeText: () => {} },
  dialog: {
    showErrorBox: (title, message) => report('error-box', { title, message }),
    showMessageBox: async () => ({ response: 0 }),
    showOpenDialog: async () =>
      process.env.FAKE_ELECTRON_OPEN_FILE
        ? { canceled: false, filePaths: [process.env.FAKE_ELECTRON_OPEN_FILE] }
        : { canceled: true, filePaths: [] },
    showSaveDialog: async () => ({ canceled: true }),
  },
  Menu: {
    buildFromTemplate: (template) => template,
    setApplicationMenu: (template) => {
      menu = template;
      report('menu', { labels: menuLabels() });
    },
  },
};

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'electron' ? 'fake-electron' : resolve.call(this, request, ...rest);
};
require.cache['fake-electron'] = { id: 'fake-electron', filename: 'fake-electron', loaded: true, exports: electron };
