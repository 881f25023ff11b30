// A tiny HTTP(S) client for the simulated apiserver's tests: real sockets, the cluster's CA for
// verification (never switched off), the bearer token added unless a test leaves it out.
import http from 'node:http';
import https from 'node:https';
import type { SimCluster } from '../sim/cluster.js';

export interface TestReply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  json<T = Record<string, unknown>>(): T;
}

export interface TestRequest {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** false = send no Authorization header. */
  readonly auth?: boolean;
}

function requestOptions(
  cluster: SimCluster,
  baseUrl: string,
  path: string,
  opts: TestRequest,
): { url: URL; options: https.RequestOptions } {
  const url = new URL(path, baseUrl);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (cluster.token && opts.auth !== false && !('authorization' in headers)) headers.authorization = `Bearer ${cluster.token}`;
  return { url, options: { method: opts.method ?? 'GET', headers, ...(cluster.ca ? { ca: cluster.ca } : {}), agent: false } };
}

function transport(url: URL) {
  return url.protocol === 'https:' ? https : http;
}

export function callServer(cluster: SimCluster, baseUrl: string, path: string, opts: TestRequest = {}): Promise<TestReply> {
  const { url, options } = requestOptions(cluster, baseUrl, path, opts);
  return new Promise((resolve, reject) => {
    const req = transport(url).request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: <T>() => JSON.parse(body) as T });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

export interface TestStream {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** Resolves with the next complete line, or undefined when the stream ended. */
  nextLine(timeoutMs?: number): Promise<string | undefined>;
  /** Resolves when the server ended the response. */
  readonly ended: Promise<void>;
  close(): void;
}

/** Opens a streaming response (watch, log follow) and reads it line by line. */
export function openStream(cluster: SimCluster, baseUrl: string, path: string, opts: TestRequest = {}): Promise<TestStream> {
  const { url, options } = requestOptions(cluster, baseUrl, path, opts);
  return new Promise((resolve, reject) => {
    const req = transport(url).request(url, options, (res) => {
      const lines: string[] = [];
      let buffer = '';
      let done = false;
      let waiter: (() => void) | undefined;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let i;
        while ((i = buffer.indexOf('\n')) >= 0) {
          lines.push(buffer.slice(0, i));
          buffer = buffer.slice(i + 1);
        }
        waiter?.();
      });
      const ended = new Promise<void>((r) => {
        const finish = () => {
          done = true;
          waiter?.();
          r();
        };
        res.on('end', finish);
        res.on('close', finish);
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        ended,
        async nextLine(timeoutMs = 5000) {
          const deadline = Date.now() + timeoutMs;
          while (lines.length === 0 && !done) {
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`no line within ${timeoutMs} ms`);
            await new Promise<void>((r) => {
              const t = setTimeout(r, left);
              waiter = () => {
                clearTimeout(t);
                r();
              };
            });
            waiter = undefined;
          }
          return lines.shift();
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}
