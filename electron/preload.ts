// Runs sandboxed before the page: exposes exactly `window.peerscope` (CoreClient over IPC).
import { contextBridge, ipcRenderer } from 'electron';
import { buildPreloadBridge } from './shell/preload-api.js';

contextBridge.exposeInMainWorld('peerscope', buildPreloadBridge(ipcRenderer));
