// Reading the answers: who answered, an object's metadata, a JSON object; and a sleep a stop cuts short.
export function answeredByOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const route = headers['x-peerscope-route'];
  if (typeof route === 'string') {
    const m = /answering=([^;\s]+)/.exec(route);
    if (m && m[1] !== '-') return m[1];
  }
  const sim = headers['x-simulated-apiserver'];
  return typeof sim === 'string' ? sim : undefined;
}

export function metadataOf(json: Record<string, unknown> | undefined): { uid?: string; resourceVersion?: string } {
  const meta = (json?.metadata ?? {}) as { uid?: unknown; resourceVersion?: unknown };
  return {
    ...(typeof meta.uid === 'string' ? { uid: meta.uid } : {}),
    ...(typeof meta.resourceVersion === 'string' ? { resourceVersion: meta.resourceVersion } : {}),
  };
}

export function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
