// Shared helpers for the port's conformance tests on real sockets (proxy-core/test/conformance-*.test.ts):
// kube-apiserver's not-found message, a recorder of what the simulated apiservers saw, and a raw Upgrade.
import { connect } from 'node:net';
import type { Bed } from './harness.js';

export const NOT_FOUND = 'the server could not find the requested resource';

export function seenBy(bed: Bed) {
  const seen: { server: string; url: string; headers: Record<string, string | string[] | undefined> }[] = [];
  const off = bed.sim.onRequest((server, req) => seen.push({ server, url: req.url, headers: req.headers }));
  return { seen, off, last: (path: string) => [...seen].reverse().find((s) => s.url.startsWith(path)) };
}

/** Sends an Upgrade request on a raw socket, writes `payload` after the 101 and collects the echo. */
export async function rawUpgrade(base: string, path: string, payload: string): Promise<{ head: string; data: string }> {
  const { port } = new URL(base);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\nContent-Length: 0\r\n\r\n`,
  );
  let buffer = '';
  let head = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer: ${JSON.stringify(buffer)}`));
    }, 5_000);
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      if (!head) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        head = buffer.slice(0, end);
        buffer = buffer.slice(end + 4);
        if (!head.startsWith('HTTP/1.1 101')) {
          clearTimeout(timer);
          socket.destroy();
          return resolve({ head, data: buffer });
        }
        socket.write(payload);
      }
      if (buffer.includes(payload)) {
        clearTimeout(timer);
        socket.destroy();
        resolve({ head, data: buffer });
      }
    });
    socket.on('error', reject);
  });
}
