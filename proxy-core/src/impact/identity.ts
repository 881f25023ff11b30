// Who a request came from, as far as the port can tell, without keeping anything that would let
// someone act as that client: a kubeconfig user name when the port added its own credential, a short
// hash of the credential a client brought, or "anonymous". See docs/decisions.md "Upgrade impact".
import { createHash } from 'node:crypto';

/** Credentials seen recently and their short hashes: one SHA-256 per distinct token, not per request. */
const HASH_CACHE_LIMIT = 1_024;
const cache = new Map<string, string>();

/** The first 8 hex digits of the SHA-256 of `text`: tells clients apart, cannot be used to authenticate. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/**
 * The identity of a request: `token:<8 hex>` for `Authorization: Bearer …`, `<scheme>:<8 hex>` for
 * another scheme, `own` (the port's own kubeconfig user) when the client brought none and the port
 * adds its credential, else "anonymous".
 */
export function identityOf(authorization: string | undefined, own: string | undefined): string {
  if (authorization === undefined || authorization === '') return own ?? 'anonymous';
  const known = cache.get(authorization);
  if (known !== undefined) return known;
  const space = authorization.indexOf(' ');
  const scheme = space > 0 ? authorization.slice(0, space).toLowerCase() : 'credential';
  const secret = space > 0 ? authorization.slice(space + 1).trim() : authorization;
  const identity = `${scheme === 'bearer' ? 'token' : /^[a-z0-9-]{1,20}$/.test(scheme) ? scheme : 'credential'}:${shortHash(secret)}`;
  if (cache.size >= HASH_CACHE_LIMIT) cache.clear();
  cache.set(authorization, identity);
  return identity;
}
