// /openapi/v2 as kube-openapi's handler negotiates it (Accept) and Go's http.ServeContent answers a
// conditional request: what the port's merged document must match.
import { describe, expect, it } from 'vitest';
import { negotiateOpenApiV2, openApiV2NotModified } from './openapi-v2-http.js';

describe('negotiateOpenApiV2', () => {
  it.each([
    [undefined, 'json'],
    ['', 'json'],
    ['*/*', 'json'],
    ['application/*', 'json'],
    ['application/json', 'json'],
    ['application/json;charset=utf-8', 'json'],
    // client-go's OpenAPISchema() (kubectl explain --output=plaintext-openapiv2, validation)
    ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'protobuf'],
    ['application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'protobuf'],
    ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf, application/json;q=0.9', 'protobuf'],
    ['application/json;q=0.5, application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'protobuf'],
    ['text/html, */*;q=0.1', 'json'],
    ['text/html', undefined],
    ['application/yaml', undefined],
    ['application/json;q=0', undefined],
  ] as const)('Accept %j → %s', (accept, encoding) => {
    expect(negotiateOpenApiV2(accept)).toBe(encoding);
  });
});

describe('openApiV2NotModified', () => {
  const etag = '"ABC"';
  const lastModified = 'Thu, 26 Nov 2026 08:35:02 GMT';
  it('If-None-Match: the tag, one of a list, a weak form of it, or *', () => {
    expect(openApiV2NotModified('"ABC"', undefined, etag, lastModified)).toBe(true);
    expect(openApiV2NotModified('"X", "ABC"', undefined, etag, lastModified)).toBe(true);
    expect(openApiV2NotModified('W/"ABC"', undefined, etag, lastModified)).toBe(true);
    expect(openApiV2NotModified('*', undefined, etag, lastModified)).toBe(true);
    expect(openApiV2NotModified('"ABD"', undefined, etag, lastModified)).toBe(false);
  });
  it('If-Modified-Since only without If-None-Match, by whole seconds', () => {
    expect(openApiV2NotModified(undefined, lastModified, etag, lastModified)).toBe(true);
    expect(openApiV2NotModified(undefined, 'Thu, 26 Nov 2026 08:35:01 GMT', etag, lastModified)).toBe(false);
    expect(openApiV2NotModified('"ABD"', 'Thu, 26 Nov 2026 09:00:00 GMT', etag, lastModified)).toBe(false);
    expect(openApiV2NotModified(undefined, 'not a date', etag, lastModified)).toBe(false);
    expect(openApiV2NotModified(undefined, undefined, etag, lastModified)).toBe(false);
  });
});
