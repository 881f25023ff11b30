// Small formatting and colour helpers shared by the features.
import type { ClusterOutcome, HealthState, RouteOutcome } from '../../../proxy-core/contract/index.js';

/** "/v1/pods" → "core/v1/pods". */
export function gvrKeyLabel(key: string): string {
  return key.startsWith('/') ? `core${key}` : key;
}

export function formatTime(at: number): string {
  const d = new Date(at);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** Local date and time, "2026-11-23 08:00:00". */
export function formatDateTime(at: number): string {
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${formatClock(at)}`;
}

/** A share 0..1 as "12.5%". */
export function formatShare(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

export function formatClock(at: number): string {
  return formatTime(at).slice(0, 8);
}

export function formatMs(ms: number | undefined): string {
  if (ms === undefined) return '—';
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

export const healthLabel: Record<HealthState, string> = {
  unknown: 'unknown',
  ready: 'ready',
  'not-ready': 'not ready',
  draining: 'draining',
  unreachable: 'down',
  gone: 'gone',
};

/** An outcome either source records: the port's, or the cluster's (audit logs). */
export type ShownOutcome = RouteOutcome | ClusterOutcome;

/**
 * Outcomes in chart stacking order, with their colour (mid tones, legible on light and dark). A false
 * 404 is the cluster's alone and has a colour no port outcome uses: the 404 a rollout should not cause.
 */
export const outcomeStyle: Record<ShownOutcome, { label: string; color: string }> = {
  local: { label: 'local', color: '#3fa66b' },
  rerouted: { label: 'rerouted', color: '#5b7cfa' },
  notfound: { label: '404 not found', color: '#e8a23a' },
  'false-404': { label: 'false 404', color: '#d6336c' },
  unavailable: { label: '503 unavailable', color: '#e5534b' },
  'discovery-merged': { label: 'discovery (merged)', color: '#a371f7' },
  'discovery-own': { label: 'discovery (own)', color: '#7d5fc9' },
  'non-resource': { label: 'non-resource', color: '#8b949e' },
  rejected: { label: 'rejected', color: '#b03a2e' },
  'not-judged': { label: 'not judged', color: '#6e7781' },
};

/** Every outcome of either source, in the stacking order above. */
export const shownOutcomes = Object.keys(outcomeStyle) as ShownOutcome[];

/** Short release from a gitVersion: "v1.37.0-dev" → "v1.37". */
export function shortRelease(gitVersion: string | undefined): string {
  if (!gitVersion) return '?';
  const m = /^v(\d+)\.(\d+)/.exec(gitVersion);
  return m ? `v${m[1]}.${m[2]}` : gitVersion;
}
