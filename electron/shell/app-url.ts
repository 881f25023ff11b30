// The app's own origin. The renderer is served from a custom privileged scheme rather than file://, so
// it gets a real origin (CSP 'self', no file-system reach) and every other origin can be refused.
export const APP_SCHEME = 'peerscope';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/`;

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/**
 * Whether a URL belongs to the app. Compared by scheme and host: WHATWG URL gives non-special schemes
 * the opaque origin "null", so `new URL(u).origin` cannot be used.
 */
export function isAppUrl(url: string | undefined | null): boolean {
  if (!url) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST && parsed.username === '' && parsed.password === '';
}
