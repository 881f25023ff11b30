// Request bodies in Kubernetes' protobuf form (`application/vnd.kubernetes.protobuf`), turned into the
// JSON object the rest of the simulator works on: the 4-byte magic "k8s\0", a runtime.Unknown
// envelope naming apiVersion and kind, and the object's own message in its `raw` bytes.
import type protobuf from 'protobufjs/light.js';
import { apiError, badRequest } from './errors.js';
import { metaMessage, objectMessage, readableKinds, TIME_TYPE } from './protobuf-schema.js';

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

/** Decodes `raw` as `type`, refusing bytes that carry fields the declared schema lacks. */
function decodeWhole(type: protobuf.Type, raw: Uint8Array, what: string): Message {
  let message: Message;
  try {
    message = type.decode(raw) as Message;
  } catch (err) {
    throw badRequest(`couldn't decode the protobuf ${what}: ${(err as Error).message}`);
  }
  // protobufjs skips fields it does not know; re-encoding shows whether any were skipped.
  if (type.encode(message).finish().length !== raw.length)
    throw unsupported(`the simulated apiserver reads only some fields of ${what} in protobuf and this body has others; send it as JSON`);
  return message;
}

function longToNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  return Number(String(value));
}

/** Go leaves empty strings, lists and maps out of JSON; an empty nested message stays (`basic: {}` means something). */
function isEmpty(value: unknown): boolean {
  if (value === undefined || value === '') return true;
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
    if (field.map ? Object.keys(json as object).length > 0 : !isEmpty(json)) out[field.name] = json;
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
