// Discovery ETags as kube-apiserver computes them (aggregated/etag.go): the double-quoted uppercase
// hex SHA-512 of the JSON of the list.
import { createHash } from 'node:crypto';

export function discoveryETag(json: string): string {
  return `"${createHash('sha512').update(json).digest('hex').toUpperCase()}"`;
}

export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === etag || tag === '*';
  });
}
