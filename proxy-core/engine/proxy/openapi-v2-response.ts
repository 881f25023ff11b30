// Writes the merged `/openapi/v2` (rule P8) with the headers kube-apiserver gives its own: the
// Content-Type of the form asked for, ETag, Last-Modified, `Cache-Control: no-cache, private`,
// `Vary: Accept`, and a 304 where http.ServeContent would give one. The bytes were built once
// (openapi-v2-cache.ts); nothing is serialised here. Not done: gzip and byte ranges, which the
// servers also offer (a loopback client gains nothing from either).
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OPENAPI_V2_PROTOBUF, openApiV2NotModified } from '../discovery/openapi-v2-http.js';
import { headerValue } from '../util/headers.js';
import { ROUTE_HEADER, routeHeader, type ShownNames } from './route-header.js';
import type { MergedOpenApiV2 } from './openapi-v2-cache.js';

/** Writes the answer; returns its status and the body bytes sent. */
export function writeOpenApiV2(
  req: IncomingMessage,
  res: ServerResponse,
  handling: string,
  merged: MergedOpenApiV2,
  names?: ShownNames,
): { status: number; bytesOut: number } {
  const headers = {
    'cache-control': 'no-cache, private',
    etag: merged.etag,
    'last-modified': merged.lastModified,
    vary: 'Accept',
    [ROUTE_HEADER]: routeHeader(handling, null, 'discovery-merged', names),
  };
  const ifNoneMatch = headerValue(req.headers['if-none-match']);
  const ifModifiedSince = headerValue(req.headers['if-modified-since']);
  if (openApiV2NotModified(ifNoneMatch, ifModifiedSince, merged.etag, merged.lastModified)) {
    res.writeHead(304, headers).end();
    return { status: 304, bytesOut: 0 };
  }
  const contentType = merged.encoding === 'json' ? 'application/json' : OPENAPI_V2_PROTOBUF;
  res.writeHead(200, { ...headers, 'content-type': contentType, 'content-length': String(merged.body.length) });
  if (req.method === 'HEAD') {
    res.end();
    return { status: 200, bytesOut: 0 };
  }
  res.end(merged.body);
  return { status: 200, bytesOut: merged.body.length };
}
