// The per-launch token every API call carries, compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function newToken(): { token: string; digest: Buffer } {
  const token = randomBytes(32).toString('base64url');
  return { token, digest: sha256(token) };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Compares digests, so the comparison takes the same time whatever the length or content sent. */
export function authorized(header: string | undefined, tokenDigest: Buffer): boolean {
  const match = /^Bearer (\S+)$/.exec(header ?? '');
  return timingSafeEqual(sha256(match?.[1] ?? ''), tokenDigest) && match !== null;
}
