// The only way out of the app to the operator's browser: https documentation links on an allow-list.
// Anything else (file:, custom schemes, other hosts) could launch a local program or leak data.
import type { Shell } from 'electron';

export type OpenExternal = Shell['openExternal'];

export function isAllowedExternalUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' || parsed.username !== '' || parsed.password !== '' || parsed.port !== '') return false;
  const host = parsed.hostname.toLowerCase();
  if (host === 'kubernetes.io' || host.endsWith('.kubernetes.io')) return true;
  if (host === 'github.com') {
    const firstSegment = parsed.pathname.split('/')[1]?.toLowerCase();
    return firstSegment === 'kubernetes';
  }
  return false;
}

/** Opens `url` in the system browser when allowed; returns whether it did. */
export async function openExternalSafely(url: string, openExternal: OpenExternal): Promise<boolean> {
  if (!isAllowedExternalUrl(url)) return false;
  await openExternal(new URL(url).href);
  return true;
}
