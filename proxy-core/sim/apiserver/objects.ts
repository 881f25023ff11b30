// Object shapes on the wire: the request's group/version decides apiVersion (the store keeps one
// copy per group+resource), JSON or protobuf bodies read with a 3 MiB cap, the answer's form.
import type { IncomingMessage } from 'node:http';
import { parseFieldSelector, parseLabelSelector, SelectorError } from '../store/selectors.js';
import type { KubeObject } from '../store/store.js';
import { apiVersionOf } from './context.js';
import { apiError, badRequest } from './errors.js';
import { acceptsPlainJson, isJsonAs, parseAccept } from './negotiate.js';
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from './protobuf-body.js';
import type { ResourceRequest } from './request-info.js';

/** kube-apiserver's request body limit (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(apiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        reject(apiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!tooLarge) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses a JSON request body into an object, with kube-apiserver's 400 on anything else. */
export function parseJsonObject(body: Buffer): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
  if (!isPlainObject(parsed)) throw badRequest("couldn't get version/kind; json parse error: the body is not a JSON object");
  return parsed;
}

/** The first media type of the request's Content-Type, lower-cased. */
export function requestMediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** An object sent to create or replace: protobuf when the client says so (kubectl's typed clients do), else JSON. */
export function parseObjectBody(req: IncomingMessage, body: Buffer): Record<string, unknown> {
  return requestMediaType(req) === PROTOBUF_MEDIA_TYPE ? decodeProtobufObject(body) : parseJsonObject(body);
}

/** The body must name the request's apiVersion and kind (when it names them at all). */
export function checkTypeMeta(obj: Record<string, unknown>, rr: ResourceRequest, kind = rr.catalog.kind): void {
  const expected = apiVersionOf(rr.group, rr.version);
  if (obj.apiVersion !== undefined && obj.apiVersion !== expected) {
    throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`);
  }
  if (obj.kind !== undefined && obj.kind !== kind) {
    throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${kind})`);
  }
  if (obj.metadata !== undefined && !isPlainObject(obj.metadata)) throw badRequest('metadata must be an object');
}

/** A stored object as the request's group/version shows it. */
export function present(obj: KubeObject, rr: Pick<ResourceRequest, 'group' | 'version' | 'catalog'>): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return { apiVersion: apiVersionOf(rr.group, rr.version), kind: rr.catalog.kind, ...rest };
}

export type ResponseForm = { kind: 'json' } | { kind: 'table'; version: 'v1' | 'v1beta1' };

/** JSON or meta.k8s.io Table, whichever the client prefers; 406 when it takes neither. */
export function negotiateObjectForm(accept: string | undefined): ResponseForm {
  for (const range of parseAccept(accept)) {
    if (isJsonAs(range, 'meta.k8s.io', 'v1', 'Table')) return { kind: 'table', version: 'v1' };
    if (isJsonAs(range, 'meta.k8s.io', 'v1beta1', 'Table')) return { kind: 'table', version: 'v1beta1' };
    if (acceptsPlainJson(range)) return { kind: 'json' };
  }
  throw apiError(
    406,
    'NotAcceptable',
    'only the following media types are accepted: application/json, application/json;as=Table;v=v1;g=meta.k8s.io',
  );
}

export function contentTypeOf(form: ResponseForm): string {
  return form.kind === 'table' ? `application/json;as=Table;v=${form.version};g=meta.k8s.io` : 'application/json';
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** generateName's random suffix (5 characters of apimachinery's alphabet). */
export function randomNameSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += NAME_SUFFIX_ALPHABET[Math.floor(Math.random() * NAME_SUFFIX_ALPHABET.length)];
  return s;
}

/**
 * `dryRun=All`: answer what the write would store and keep nothing (kubectl diff and
 * `--dry-run=server` ask so). Any other value is refused, as kube-apiserver refuses it.
 */
export function isDryRun(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  if (values.length === 0) return false;
  const unsupported = values.find((v) => v !== 'All');
  if (unsupported !== undefined) throw badRequest(`dryRun: Unsupported value: "${unsupported}": supported values: "All"`);
  return true;
}

/** The request's label and field selectors; a malformed one, or a field label the resource lacks, is a 400. */
export function selectorsOf(query: URLSearchParams, rr: Pick<ResourceRequest, 'group' | 'resource'>) {
  try {
    return {
      labelMatches: parseLabelSelector(query.get('labelSelector')),
      fieldMatches: parseFieldSelector(query.get('fieldSelector'), `${rr.group}/${rr.resource}`),
    };
  } catch (err) {
    if (err instanceof SelectorError) throw badRequest(err.message);
    throw err;
  }
}
