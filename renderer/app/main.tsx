// Entry of the page. In the desktop app the preload gives a CoreClient over IPC. In browser mode,
// take the per-launch token from the URL fragment (then remove it from the address bar and history),
// keep it for this tab only, and use the HTTP + SSE transport.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { createHttpCoreClient } from '../shared/transport/http.js';
import { preloadBridge, validatingClient } from '../shared/transport/ipc.js';
import './styles.css';

const TOKEN_KEY = 'peerscope.token';

function takeToken(): string | null {
  const match = /(?:^#|&)token=([^&]+)/.exec(window.location.hash);
  if (match?.[1]) {
    const token = decodeURIComponent(match[1]);
    sessionStorage.setItem(TOKEN_KEY, token);
    history.replaceState(null, '', window.location.pathname + window.location.search);
    return token;
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

const root = createRoot(document.getElementById('root')!);
const bridge = preloadBridge();
const token = bridge ? null : takeToken();
if (bridge) {
  root.render(
    <StrictMode>
      <App client={validatingClient(bridge)} />
    </StrictMode>,
  );
} else if (!token) {
  root.render(
    <main className="no-token">
      <h1>Peerscope</h1>
      <p>This page needs the link Peerscope printed when it started (it carries a one-time token). Open that link again.</p>
    </main>,
  );
} else {
  const client = createHttpCoreClient({ token });
  root.render(
    <StrictMode>
      <App client={client} connection={client} />
    </StrictMode>,
  );
}
