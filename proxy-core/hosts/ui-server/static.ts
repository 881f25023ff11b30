// The built renderer (dist/renderer/) as static files: confined to its folder, fingerprinted assets
// cached for good, index.html always fresh.
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sendError } from './answers.js';

export function defaultRendererDir(): string {
  const candidates = [
    fileURLToPath(new URL('../renderer/', import.meta.url)), // a chunk of the CLI, dist/chunks/ → dist/renderer/
    fileURLToPath(new URL('./renderer/', import.meta.url)), // the CLI bundle, dist/cli.mjs → dist/renderer/
    fileURLToPath(new URL('../../../dist/renderer/', import.meta.url)), // the source, proxy-core/hosts/ui-server/ → dist/renderer/
  ];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? candidates[2]!;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
};

export function serveStatic(res: ServerResponse, root: string, pathname: string, headOnly: boolean): void {
  let relative: string;
  try {
    relative = decodeURIComponent(pathname);
  } catch {
    return sendError(res, 400, 'PEERSCOPE_ERR_NO_METHOD', 'bad path');
  }
  if (relative === '/' || relative === '') relative = '/index.html';
  const file = resolve(join(root, relative));
  if (!file.startsWith(root + sep) || relative.includes('\0')) return sendError(res, 404, 'PEERSCOPE_ERR_NO_METHOD', 'not found');
  if (!existsSync(file) || !statSync(file).isFile()) {
    if (relative === '/index.html') {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      return void res.end(`The UI is not built (no ${file}): run npm run build.\n`);
    }
    return sendError(res, 404, 'PEERSCOPE_ERR_NO_METHOD', 'not found');
  }
  const body = readFileSync(file);
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': body.length,
    // Vite fingerprints every asset name; index.html must always be fresh.
    'cache-control': relative.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  res.end(headOnly ? undefined : body);
}
