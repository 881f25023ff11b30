// P8's merged /openapi/v2, both forms: the union of every server's paths, definitions and parameters,
// the newest release's definition winning a name, names sorted; everything else the newest server's.
import { describe, expect, it } from 'vitest';
import {
  jsonDocument,
  MERGED_DEFINITIONS,
  MERGED_PATHS,
  NEWER,
  OLDER,
  protobufDocument,
  readJsonDocument,
  readProtobufDocument,
} from '../../test/openapi-v2-documents.js';
import { mergeOpenApiV2Json, newestFirst, parseOpenApiV2Json } from './openapi-v2-merge.js';
import { isOpenApiV2Protobuf, mergeOpenApiV2Protobuf } from './openapi-v2-protobuf.js';

const json = (doc: typeof OLDER) => parseOpenApiV2Json(jsonDocument(doc))!;

describe('the merged OpenAPI v2 document (JSON)', () => {
  it('is the union of both releases, the newer one winning a name both define, in sorted order', () => {
    for (const order of [
      [
        { server: 'a', release: 'v1.36.3', doc: json(OLDER) },
        { server: 'b', release: 'v1.37.2', doc: json(NEWER) },
      ],
      [
        { server: 'b', release: 'v1.37.2', doc: json(NEWER) },
        { server: 'a', release: 'v1.36.3', doc: json(OLDER) },
      ],
    ]) {
      const merged = readJsonDocument(JSON.stringify(mergeOpenApiV2Json(order)));
      expect(merged.version).toBe('1.37');
      expect(merged.paths).toEqual(MERGED_PATHS);
      expect(merged.definitions).toEqual(MERGED_DEFINITIONS);
      expect(merged.parameters).toEqual(['body-2Y1dVQaQ', 'old-only-param']);
      expect(merged.pathOrder).toEqual(Object.keys(MERGED_PATHS).sort());
      expect(merged.definitionOrder).toEqual(Object.keys(MERGED_DEFINITIONS).sort());
    }
  });

  it("keeps the newest document's members in its order (swagger, info, paths, definitions, parameters, security)", () => {
    const merged = mergeOpenApiV2Json([
      { server: 'a', release: 'v1.36.3', doc: json(OLDER) },
      { server: 'b', release: 'v1.37.2', doc: json(NEWER) },
    ]);
    expect(Object.keys(merged)).toEqual(['swagger', 'info', 'paths', 'definitions', 'parameters', 'security']);
    expect(merged.security).toEqual([{ BearerToken: [] }]);
  });

  it('orders servers newest release first; an unknown release counts as the oldest; ties by name', () => {
    const s = (server: string, release: string | undefined) => ({ server, release, doc: null });
    expect(newestFirst([s('x', undefined), s('c', 'v1.36.3'), s('b', 'v1.37.0'), s('a', 'v1.37.0')]).map((e) => e.server)).toEqual([
      'a',
      'b',
      'c',
      'x',
    ]);
    // A 1.36 server of unknown release does not win over a known 1.35 one.
    const merged = mergeOpenApiV2Json([
      { server: 'a', release: undefined, doc: json(NEWER) },
      { server: 'b', release: 'v1.35.0', doc: json(OLDER) },
    ]);
    expect((merged.info as { version: string }).version).toBe('1.36');
  });

  it('reads only documents: not JSON, not an object, or no swagger member is none', () => {
    expect(parseOpenApiV2Json('nope')).toBeUndefined();
    expect(parseOpenApiV2Json('[]')).toBeUndefined();
    expect(parseOpenApiV2Json('{"kind":"Status"}')).toBeUndefined();
    expect(parseOpenApiV2Json('{"swagger":"2.0","paths":{}}')).toEqual({ swagger: '2.0', paths: {} });
  });
});

describe('the merged OpenAPI v2 document (protobuf, gnostic openapi.v2.Document)', () => {
  it('says what the JSON merge says: the union, the newer release winning, names sorted', () => {
    const bytes = mergeOpenApiV2Protobuf([
      { server: 'a', release: 'v1.36.3', doc: protobufDocument(OLDER) },
      { server: 'b', release: 'v1.37.2', doc: protobufDocument(NEWER) },
    ]);
    const merged = readProtobufDocument(bytes);
    expect(merged.version).toBe('1.37');
    expect(merged.paths).toEqual(MERGED_PATHS);
    expect(merged.definitions).toEqual(MERGED_DEFINITIONS);
    expect(merged.parameters).toEqual(['body-2Y1dVQaQ', 'old-only-param']);
    expect(merged.pathOrder).toEqual(Object.keys(MERGED_PATHS).sort());
    expect(merged.definitionOrder).toEqual(Object.keys(MERGED_DEFINITIONS).sort());
    // Paths' vendor extensions are the newest server's, as everything but the named maps is.
    expect(merged.pathExtensions).toEqual({ 'x-new': 'new' });
    const fromJson = readJsonDocument(
      JSON.stringify(
        mergeOpenApiV2Json([
          { server: 'a', release: 'v1.36.3', doc: json(OLDER) },
          { server: 'b', release: 'v1.37.2', doc: json(NEWER) },
        ]),
      ),
    );
    expect({ ...merged, pathExtensions: undefined }).toEqual({ ...fromJson, pathExtensions: undefined });
  });

  it('keeps each entry as its server wrote it, byte for byte', () => {
    // The merge of one document whose names are sorted (as kube-openapi writes them) is that document.
    const sorted = (m: Readonly<Record<string, string>>) => Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : 1)));
    const one = protobufDocument({ ...NEWER, paths: sorted(NEWER.paths), definitions: sorted(NEWER.definitions) });
    expect(Buffer.from(mergeOpenApiV2Protobuf([{ server: 'b', release: 'v1.37.2', doc: one }]))).toEqual(one);
  });

  it('tells a Document from other bytes', () => {
    expect(isOpenApiV2Protobuf(protobufDocument(OLDER))).toBe(true);
    expect(isOpenApiV2Protobuf(Buffer.from('{"kind":"Status"}'))).toBe(false);
    expect(isOpenApiV2Protobuf(Buffer.from([0x0a, 0x05, 0x32]))).toBe(false);
  });
});
