// peerscope://app/… serves the built renderer (dist/renderer/) and nothing else. Every response carries
// the strict CSP. A path that could leave the root — `..` raw or percent-encoded, an encoded slash or
// backslash, a drive letter, a symlink pointing outside — answers 404, as does anything missing.
import { readFile, realpath, stat } from 'node:fs/promises';
import { extname, isAbsolute, join, relative, resolve } from 'node:path';
import type { CustomScheme, Protocol } from 'electron';
import { APP_HOST, APP_SCHEME, CONTENT_SECURITY_POLICY } from './app-url.js';

/** Must be registered before the app is ready (Electron's rule for privileged schemes). */
export function appSchemePrivileges(): CustomScheme[] {
  return [
    {
      scheme: APP_SCHEME,
      // standard: a real origin for CSP 'self' and relative URLs; secure: treated like https.
      privileges: {
        standard: true,
        secure: true,
        supportFetchAPI: true,
        corsEnabled: false,
        stream: false,
        bypassCSP: false,
        allowServiceWorkers: false,
      },
    },
  ];
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

function securityHeaders(extra: Record<string, string> = {}): Headers {
  return new Headers({
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    ...extra,
  });
}

function plain(status: number, text: string): Response {
  return new Response(text, { status, headers: securityHeaders({ 'Content-Type': 'text/plain; charset=utf-8' }) });
}

/**
 * The path segments a request asks for, decoded, or undefined when any segment could escape the root.
 * Works on the raw URL text: WHATWG parsing would already have folded `..` away, hiding the attempt.
 */
export function safeSegments(rawUrl: string): string[] | undefined {
  const prefix = `${APP_SCHEME}://${APP_HOST}`;
  if (!rawUrl.toLowerCase().startsWith(prefix)) return undefined;
  let rest = rawUrl.slice(prefix.length);
  if (rest !== '' && !rest.startsWith('/')) return undefined; // peerscope://app.evil/, peerscope://app:80/
  rest = rest.replace(/[?#].*$/s, '');
  const segments: string[] = [];
  for (const raw of rest.split('/')) {
    if (raw === '') continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment === '.' || segment === '..' || /[/\\\0:]/.test(segment)) return undefined;
    segments.push(segment);
  }
  return segments;
}

function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export type AppRequest = Pick<Request, 'url' | 'method'>;

export function createAppProtocolHandler(rendererDir: string): (request: AppRequest) => Promise<Response> {
  const root = resolve(rendererDir);
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'method not allowed');
    const segments = safeSegments(request.url);
    if (!segments) return plain(404, 'not found');
    const requested = segments.length === 0 ? join(root, 'index.html') : join(root, ...segments);
    if (!isInside(root, requested)) return plain(404, 'not found');
    try {
      // Symlinks are followed only when they stay inside the (real) root.
      const [realRoot, realFile] = await Promise.all([realpath(root), realpath(requested)]);
      if (!isInside(realRoot, realFile) || !(await stat(realFile)).isFile()) return plain(404, 'not found');
      const body = await readFile(realFile);
      const type = CONTENT_TYPES[extname(realFile).toLowerCase()] ?? 'application/octet-stream';
      return new Response(request.method === 'HEAD' ? null : body, {
        status: 200,
        headers: securityHeaders({ 'Content-Type': type, 'Content-Length': String(body.length) }),
      });
    } catch {
      return plain(404, 'not found');
    }
  };
}

export function registerAppProtocol(protocol: Pick<Protocol, 'handle'>, rendererDir: string): void {
  const handler = createAppProtocolHandler(rendererDir);
  protocol.handle(APP_SCHEME, (request) => handler(request));
}
