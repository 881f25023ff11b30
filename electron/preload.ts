// Runs sandboxed before the page: exposes exactly `window.peerscope` (CoreClient over IPC).
import { contextBridge, ipcRenderer } from 'electron';
import { buildPreloadApi } from './shell/preload-api.js';

contextBridge.exposeInMainWorld('peerscope', buildPreloadApi(ipcRenderer));
