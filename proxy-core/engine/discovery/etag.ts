// Discovery ETags as kube-apiserver computes them (rule D2, aggregated/etag.go): the double-quoted
// uppercase hex SHA-512 of the JSON of the list.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { createHash } from 'node:crypto';

export function discoveryETag(json: string): string {
  return `"${createHash('sha512').update(json, 'utf8').digest('hex').toUpperCase()}"`;
}

/**
 * D2: 304 when If-None-Match *equals* the ETag. kube-apiserver compares the header value as a
 * whole (no lists, no weak tags, no `*`), and so does Peerscope: a client gets exactly the 304s it
 * would get from the server.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  return header !== undefined && header.trim() === etag;
}
