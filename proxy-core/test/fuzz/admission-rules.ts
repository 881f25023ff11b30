// The port's admission rules as the fuzz models them: which Host values are its own, when a
// browser's marks refuse a request, and which paths are the discovery roots it answers itself
// (aggregated and legacy /apis, the OpenAPI v3 index and /openapi/v2: rule P8).
import type { BrowserMarks } from './request-spec.js';

export const LOOPBACK_OK = (port: number) =>
  new Set(['localhost', '127.0.0.1', '[::1]', `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]);

export function browserRefuses(marks: BrowserMarks | undefined, host: string | undefined): boolean {
  if (!marks) return false;
  const origin = marks.origin;
  if (
    origin !== undefined &&
    (origin.toLowerCase() === 'null' || host === undefined || origin.toLowerCase() !== `http://${host.toLowerCase()}`)
  )
    return true;
  const site = marks.fetchSite?.toLowerCase();
  return site === 'cross-site' || site === 'same-site';
}

/**
 * The paths the port may answer itself for a GET or HEAD: merged discovery at /apis (aggregated v2,
 * and legacy by rule P8), the merged OpenAPI v3 index and /openapi/v2 (P8, the port's default mode).
 */
export function isDiscoveryRoot(path: string): boolean {
  return (
    path === '/apis' ||
    path === '/apis/' ||
    path === '/api' ||
    path === '/api/' ||
    path === '/openapi/v3' ||
    path === '/openapi/v3/' ||
    path === '/openapi/v2'
  );
}
