// Who a request came from, as far as the port can tell, without keeping anything that would let
// someone act as that client: a kubeconfig user name when the port added its own credential, a short
// hash of the credential a client brought, or "anonymous". See docs/decisions.md "Upgrade impact".
import { createHash } from 'node:crypto';

/** Credentials seen recently and their short hashes: one SHA-256 per distinct token, not per request. */
const HASH_CACHE_LIMIT = 1_024;
const cache = new Map<string, { readonly authorization: string; readonly identity: string }>();

/**
 * The cache key of a credential: its length and its first 16 and last 48 characters. Hashing a whole
 * service-account token (~1,000 characters) for the lookup cost ~1.7 µs a request; these ~70 do not.
 * The entry keeps the whole header and is used only when it is equal: a different credential that
 * shares the key is hashed on its own and takes the entry over.
 */
function cacheKey(authorization: string): string {
  return authorization.length <= 64 ? authorization : `${authorization.length}:${authorization.slice(0, 16)}${authorization.slice(-48)}`;
}

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
  const key = cacheKey(authorization);
  const known = cache.get(key);
  if (known !== undefined && known.authorization === authorization) return known.identity;
  const space = authorization.indexOf(' ');
  const scheme = space > 0 ? authorization.slice(0, space).toLowerCase() : 'credential';
  const secret = space > 0 ? authorization.slice(space + 1).trim() : authorization;
  const identity = `${scheme === 'bearer' ? 'token' : /^[a-z0-9-]{1,20}$/.test(scheme) ? scheme : 'credential'}:${shortHash(secret)}`;
  if (cache.size >= HASH_CACHE_LIMIT) cache.clear();
  cache.set(key, { authorization, identity });
  return identity;
}
