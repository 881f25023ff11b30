// The merged OpenAPI v2 document in the protobuf form kube-apiserver serves (gnostic's
// `openapi.v2.Document`, Accept `application/com.github.proto-openapi.spec.v2@v1.0+protobuf`), merged
// by openapi-v2-merge.ts's rule. The merge works on the wire format with protobufjs' Reader and
// Writer: a named map (paths, definitions, …) is a repeated message whose entries carry their name
// in field 1, so each entry is kept as the exact bytes its server wrote and only the names are read.
// No schema is compiled or shipped, and nothing a server wrote is re-encoded (docs/decisions.md).
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import protobuf from 'protobufjs/minimal.js';
import { byBytes, newestFirst, type ServerOpenApiV2 } from './openapi-v2-merge.js';

const { Reader, Writer } = protobuf;

/** Protobuf wire type of a length-delimited field (strings, bytes, messages). */
const LENGTH_DELIMITED = 2;

/**
 * gnostic's OpenAPIv2.proto: the Document fields that hold a named map, and the field of that
 * message that holds its entries (`Paths.path = 2`; `additional_properties = 1` in the others).
 * Every entry message (NamedPathItem, NamedSchema, …) has `string name = 1`.
 */
const NAMED_MAP_FIELDS: ReadonlyMap<number, number> = new Map([
  [8, 2], // paths: Paths { repeated NamedAny vendor_extension = 1; repeated NamedPathItem path = 2; }
  [9, 1], // definitions: Definitions { repeated NamedSchema additional_properties = 1; }
  [10, 1], // parameters: ParameterDefinitions
  [11, 1], // responses: ResponseDefinitions
  [13, 1], // security_definitions: SecurityDefinitions
]);
const ENTRY_NAME_FIELD = 1;

/** One field as written: its number, its bytes (tag included) and, when length-delimited, its content. */
interface WireField {
  readonly number: number;
  readonly raw: Uint8Array;
  readonly content: Uint8Array | undefined;
}

/** The fields of one message, in the order written; throws on bytes that are not a message. */
function fieldsOf(message: Uint8Array): WireField[] {
  const reader = Reader.create(message);
  const fields: WireField[] = [];
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const tag = reader.uint32();
    const number = tag >>> 3;
    const wireType = tag & 7;
    if (number === 0) throw new RangeError(`field number 0 at byte ${start}`);
    let content: Uint8Array | undefined;
    if (wireType === LENGTH_DELIMITED) {
      const length = reader.uint32();
      const from = reader.pos;
      reader.skip(length);
      content = message.subarray(from, from + length);
    } else reader.skipType(wireType);
    fields.push({ number, raw: message.subarray(start, reader.pos), content });
  }
  return fields;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** An entry's name (its field 1, written first); undefined when it has none. Reads no further than the name. */
function nameOf(entry: Uint8Array): string | undefined {
  const reader = Reader.create(entry);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const wireType = tag & 7;
    if (tag >>> 3 === ENTRY_NAME_FIELD && wireType === LENGTH_DELIMITED) {
      const length = reader.uint32();
      const from = reader.pos;
      reader.skip(length);
      return utf8.decode(entry.subarray(from, from + length));
    }
    reader.skipType(wireType);
  }
  return undefined;
}

/** Whether bytes read as a gnostic Document: a message whose `swagger` (field 1) is a string. */
export function isOpenApiV2Protobuf(bytes: Uint8Array): boolean {
  try {
    const first = fieldsOf(bytes).find((f) => f.number === 1);
    return first?.content !== undefined && utf8.decode(first.content).length > 0;
  } catch {
    return false;
  }
}

/**
 * One Document over every server: the newest server's fields, each named map the union of every
 * server's entries (the newest server naming an entry wins; names sorted, as kube-openapi writes
 * them), the map's other fields (Paths' vendor extensions) the newest server's. Fields in number order.
 */
export function mergeOpenApiV2Protobuf(servers: readonly ServerOpenApiV2<Uint8Array>[]): Uint8Array {
  const ordered = newestFirst(servers).map((s) => fieldsOf(s.doc));
  const newest = ordered[0];
  if (!newest) throw new Error('no OpenAPI v2 document to merge');
  const parts: { number: number; raw: readonly Uint8Array[] }[] = newest
    .filter((f) => !NAMED_MAP_FIELDS.has(f.number))
    .map((f) => ({ number: f.number, raw: [f.raw] }));
  for (const [mapField, entryField] of NAMED_MAP_FIELDS) {
    const entries = new Map<string, Uint8Array>();
    let present = false;
    for (const fields of ordered) {
      for (const field of fields) {
        if (field.number !== mapField || !field.content) continue;
        present = true;
        for (const inner of fieldsOf(field.content)) {
          if (inner.number !== entryField || !inner.content) continue;
          const name = nameOf(inner.content);
          if (name !== undefined && !entries.has(name)) entries.set(name, inner.raw);
        }
      }
    }
    if (!present) continue;
    const others = newest
      .filter((f) => f.number === mapField && f.content)
      .flatMap((f) => fieldsOf(f.content as Uint8Array).filter((inner) => inner.number !== entryField));
    const sorted = [...entries.keys()].sort(byBytes).map((name) => entries.get(name) as Uint8Array);
    const content = [
      ...others.filter((f) => f.number < entryField).map((f) => f.raw),
      ...sorted,
      ...others.filter((f) => f.number > entryField).map((f) => f.raw),
    ];
    parts.push({ number: mapField, raw: [lengthDelimited(mapField, content)] });
  }
  const writer = Writer.create();
  for (const part of parts.sort((a, b) => a.number - b.number)) for (const raw of part.raw) writer.raw(raw);
  return writer.finish();
}

/** Field `number` as a message whose content is `content` concatenated. */
function lengthDelimited(number: number, content: readonly Uint8Array[]): Uint8Array {
  const writer = Writer.create();
  writer.uint32(((number << 3) | LENGTH_DELIMITED) >>> 0);
  writer.uint32(content.reduce((sum, c) => sum + c.length, 0));
  for (const c of content) writer.raw(c);
  return writer.finish();
}
