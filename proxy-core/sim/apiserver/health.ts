// /version, /livez, /readyz, /healthz with kube-apiserver's wording: "ok", the verbose "[+]check ok"
// list, and while draining readyz's "[-]shutdown failed: reason withheld".
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { ReleaseCatalog } from '../../engine/releases/index.js';
import type { ApiContext } from './context.js';
import { notFoundError, sendJson, sendText } from './errors.js';

const LIVEZ_CHECKS = [
  'ping',
  'log',
  'etcd',
  'poststarthook/start-apiserver-admission-initializer',
  'poststarthook/generic-apiserver-start-informers',
  'poststarthook/start-apiextensions-informers',
  'poststarthook/crd-informer-synced',
  'poststarthook/bootstrap-controller',
  'poststarthook/start-kube-apiserver-identity-lease-controller',
  'poststarthook/apiservice-registration-controller',
  // The UnknownVersionInteroperabilityProxy gate's reconciler (on by default since v1.36). A simulated
  // server proxies nothing itself, as a real one without --peer-ca-file: no mixed-version-proxy-handler.
  'poststarthook/peer-endpoint-reconciler-controller',
];
const READYZ_CHECKS = ['ping', 'log', 'etcd', 'etcd-readiness', 'informer-sync', ...LIVEZ_CHECKS.slice(3), 'shutdown'];

/** Handles /livez, /readyz, /healthz and their per-check paths; false when `path` is none of them. */
export function serveHealth(ctx: ApiContext, res: ServerResponse, path: string, query: URLSearchParams): boolean {
  const m = /^\/(livez|readyz|healthz)(?:\/(.+))?$/.exec(path);
  if (!m) return false;
  const endpoint = m[1] as 'livez' | 'readyz' | 'healthz';
  const checks = endpoint === 'livez' ? LIVEZ_CHECKS : READYZ_CHECKS;
  const failing = new Set<string>(endpoint !== 'livez' && ctx.isDraining() ? ['shutdown'] : []);
  const single = m[2];
  if (single) {
    if (!checks.includes(single)) throw notFoundError();
    if (failing.has(single)) sendText(res, 500, 'internal server error: reason withheld\n');
    else sendText(res, 200, 'ok');
    return true;
  }
  const excluded = new Set(query.getAll('exclude'));
  const shown = checks.filter((c) => !excluded.has(c));
  const failed = shown.some((c) => failing.has(c));
  const lines = shown.map((c) => (failing.has(c) ? `[-]${c} failed: reason withheld` : `[+]${c} ok`));
  if (failed) {
    // kube-apiserver prints the full list on failure, verbose or not.
    sendText(res, 500, `${lines.join('\n')}\n${endpoint} check failed\n`);
  } else if (query.has('verbose')) {
    sendText(res, 200, `${lines.join('\n')}\n${endpoint} check passed\n`);
  } else {
    sendText(res, 200, 'ok');
  }
  return true;
}

export function versionInfo(release: ReleaseCatalog) {
  const commit = createHash('sha1').update(release.gitVersion).digest('hex');
  return {
    major: release.major,
    minor: release.minor,
    emulationMajor: release.major,
    emulationMinor: release.minor.replace(/\D+$/, ''),
    minCompatibilityMajor: release.major,
    minCompatibilityMinor: String(Math.max(0, Number.parseInt(release.minor, 10) - 1)),
    gitVersion: release.gitVersion,
    gitCommit: commit,
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.25.5',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export function serveVersion(ctx: ApiContext, res: ServerResponse): void {
  sendJson(res, 200, versionInfo(ctx.release));
}
