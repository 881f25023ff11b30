// Request bodies in Kubernetes' protobuf form (`application/vnd.kubernetes.protobuf`), turned into the
// JSON object the rest of the simulator works on: the 4-byte magic "k8s\0", a runtime.Unknown
// envelope naming apiVersion and kind, and the object's own message in its `raw` bytes.
import protobuf from 'protobufjs/light.js';
import { apiError, badRequest } from './errors.js';
import { INT_OR_STRING_TYPE, isPointer, metaMessage, objectMessage, QUANTITY_TYPE, readableKinds, TIME_TYPE } from './protobuf-schema.js';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

type Message = protobuf.Message & Record<string, unknown>;

function unsupported(message: string) {
  return apiError(415, 'UnsupportedMediaType', message, {});
}

/** The envelope's apiVersion, kind and object bytes. */
function unwrap(body: Buffer): { apiVersion: string; kind: string; raw: Uint8Array } {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC))
    throw badRequest('provided object is not a Kubernetes protobuf message: it does not begin with the "k8s\\x00" prefix');
  let unknown: Message;
  try {
    unknown = metaMessage('Unknown').decode(body.subarray(MAGIC.length)) as Message;
  } catch (err) {
    throw badRequest(`couldn't decode the protobuf envelope: ${(err as Error).message}`);
  }
  const typeMeta = (unknown.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  if (unknown.contentEncoding) throw unsupported(`protobuf content encoding "${String(unknown.contentEncoding)}" is not supported`);
  return {
    apiVersion: typeMeta.apiVersion ?? '',
    kind: typeMeta.kind ?? '',
    raw: (unknown.raw as Uint8Array | undefined) ?? new Uint8Array(),
  };
}

const LENGTH_DELIMITED = 2;
const VARINT = 0;

/**
 * Where `bytes` carry a value in a field `type` does not declare ("PodSpec field 14"). Go writes
 * every non-pointer field, zero ones included (a whole status of zeros); those say nothing and pass.
 */
function undeclaredFields(type: protobuf.Type, bytes: Uint8Array, out: string[] = []): string[] {
  const reader = protobuf.Reader.create(bytes);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const id = tag >>> 3;
    const wireType = tag & 7;
    const field = type.fieldsById[id];
    if (wireType === LENGTH_DELIMITED) {
      const length = reader.uint32();
      const content = bytes.subarray(reader.pos, reader.pos + length);
      reader.skip(length);
      if (!field) {
        if (!holdsOnlyZeros(content)) out.push(`${type.name} field ${id}`);
      } else if (field.resolvedType instanceof protobuf.Type) {
        if (!field.map) undeclaredFields(field.resolvedType, content, out);
        else undeclaredInMapValue(field.resolvedType, content, out);
      }
    } else if (!field && wireType === VARINT) {
      if (String(reader.uint64()) !== '0') out.push(`${type.name} field ${id}`);
    } else if (!field) {
      reader.skipType(wireType);
      out.push(`${type.name} field ${id}`);
    } else reader.skipType(wireType);
  }
  return out;
}

/**
 * True for bytes that read as a message of nothing but zeros and empty fields, at any depth: what Go
 * writes for a struct left at its zero value (a Deployment's status on create). A string or a set
 * number does not read so.
 */
function holdsOnlyZeros(bytes: Uint8Array, depth = 0): boolean {
  if (depth > 32) return false;
  try {
    const reader = protobuf.Reader.create(bytes);
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      if (tag >>> 3 === 0) return false;
      if ((tag & 7) === VARINT) {
        if (String(reader.uint64()) !== '0') return false;
      } else if ((tag & 7) === LENGTH_DELIMITED) {
        const length = reader.uint32();
        const content = bytes.subarray(reader.pos, reader.pos + length);
        reader.skip(length);
        if (!holdsOnlyZeros(content, depth + 1)) return false;
      } else return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** A map entry is a message of key (1) and value (2); only a message value can hide fields. */
function undeclaredInMapValue(valueType: protobuf.Type, entry: Uint8Array, out: string[]): void {
  const reader = protobuf.Reader.create(entry);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === 2 && (tag & 7) === LENGTH_DELIMITED) {
      const length = reader.uint32();
      undeclaredFields(valueType, entry.subarray(reader.pos, reader.pos + length), out);
      reader.skip(length);
    } else reader.skipType(tag & 7);
  }
}

/** Decodes `raw` as `type`, refusing bytes that carry values in fields the declared schema lacks. */
function decodeWhole(type: protobuf.Type, raw: Uint8Array, what: string): Message {
  let message: Message;
  let undeclared: string[];
  try {
    message = type.decode(raw) as Message;
    undeclared = undeclaredFields(type, raw);
  } catch (err) {
    throw badRequest(`couldn't decode the protobuf ${what}: ${(err as Error).message}`);
  }
  // protobufjs skips fields it does not know; dropping a value silently would store another object.
  if (undeclared.length > 0)
    throw unsupported(
      `the simulated apiserver does not read ${[...new Set(undeclared)].join(', ')} of a protobuf ${what}; send it as JSON`,
    );
  return message;
}

function longToNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  return Number(String(value));
}

/** What Go's JSON leaves out of a field that is not a pointer: "", 0, false, empty lists and maps. */
function isZero(value: unknown): boolean {
  if (value === undefined || value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return false;
}

/** One value of a field, as Kubernetes JSON writes it (bytes base64, Time RFC 3339, int64 numbers). */
function valueToJson(field: protobuf.Field, value: unknown): unknown {
  const nested = field.resolvedType;
  if (nested && 'fieldsArray' in nested) {
    if (nested.fullName === TIME_TYPE) {
      const { seconds, nanos } = value as { seconds?: unknown; nanos?: unknown };
      const ms = longToNumber(seconds ?? 0) * 1000 + Math.floor(longToNumber(nanos ?? 0) / 1e6);
      return ms === 0 ? undefined : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
    if (nested.fullName === QUANTITY_TYPE) return (value as { string?: string }).string ?? '';
    if (nested.fullName === INT_OR_STRING_TYPE) {
      const { type, intVal, strVal } = value as { type?: unknown; intVal?: number; strVal?: string };
      return longToNumber(type ?? 0) === 1 ? (strVal ?? '') : (intVal ?? 0);
    }
    return messageToJson(nested, value as Message);
  }
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (field.type === 'int64') return longToNumber(value);
  return value;
}

/** A decoded message as a JSON object. */
function messageToJson(type: protobuf.Type, message: Message): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    if (!Object.hasOwn(message, field.name)) continue;
    const value = message[field.name];
    let json: unknown;
    if (field.map) json = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, valueToJson(field, v)]));
    else if (field.repeated) json = (value as unknown[]).map((v) => valueToJson(field, v));
    else json = valueToJson(field, value);
    if (json === undefined) continue;
    // An empty nested message stays: Go writes `basic: {}` or `strategy: {}` as the object it is.
    const empty = field.map ? Object.keys(json as object).length === 0 : isZero(json);
    if (!empty || (isPointer(field) && !field.repeated && !field.map)) out[field.name] = json;
  }
  return out;
}

/** The object a protobuf request body carries, as JSON with its apiVersion and kind. */
export function decodeProtobufObject(body: Buffer): Record<string, unknown> {
  const { apiVersion, kind, raw } = unwrap(body);
  const type = objectMessage(apiVersion, kind);
  if (!type)
    throw unsupported(
      `the simulated apiserver reads protobuf bodies of ${readableKinds()} only, not ${apiVersion} ${kind}; send it as JSON`,
    );
  return { apiVersion, kind, ...messageToJson(type, decodeWhole(type, raw, `${apiVersion} ${kind}`)) };
}

/** DeleteOptions sent as protobuf by a typed client, as JSON. */
export function decodeProtobufDeleteOptions(body: Buffer): Record<string, unknown> {
  const { raw } = unwrap(body);
  const type = metaMessage('DeleteOptions');
  return messageToJson(type, decodeWhole(type, raw, 'DeleteOptions'));
}
