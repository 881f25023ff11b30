// The merged OpenAPI v2 document the port answers at `/openapi/v2` (rule P8), one per encoding asked
// for (JSON, protobuf), the same whichever server handles the request. Each server's own document is
// read with the core's own client (as discovery is) when first asked after a discovery change, and
// revalidated (If-None-Match: a 304 costs the server nothing) at most every DOCUMENT_MAX_AGE_MS
// otherwise, since a CRD's schema can change without changing discovery. Only the merged bytes are
// kept: the servers' documents (2–3 MB each) are dropped once merged, and when one changed every
// server's is read again.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { createHash } from 'node:crypto';
import type { ServerSet } from '../cluster/server-set.js';
import { OPENAPI_V2_PATH, type OpenApiV2Encoding } from '../discovery/openapi-v2-http.js';
import { mergeOpenApiV2Json, parseOpenApiV2Json, type OpenApiV2Json, type ServerOpenApiV2 } from '../discovery/openapi-v2-merge.js';
import { isOpenApiV2Protobuf, mergeOpenApiV2Protobuf } from '../discovery/openapi-v2-protobuf.js';
import type { RouteState } from './route-state.js';

/** How long a merged document is trusted when discovery did not change: the freshness issue 32 asks for. */
export const DOCUMENT_MAX_AGE_MS = 2_000;

/** The Accept each server is read with, per encoding (client-go's for protobuf). */
const READ_ACCEPT: Readonly<Record<OpenApiV2Encoding, string>> = {
  json: 'application/json',
  protobuf: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
};

export interface MergedOpenApiV2 {
  readonly encoding: OpenApiV2Encoding;
  readonly body: Buffer;
  /** As kube-openapi's: the double-quoted uppercase hex SHA-512 of the body. */
  readonly etag: string;
  /** When these bytes were first built (an HTTP date), as a server tells when its document last changed. */
  readonly lastModified: string;
  /** The servers whose documents it holds. */
  readonly servers: ReadonlySet<string>;
}

interface Built {
  readonly merged: MergedOpenApiV2;
  /** Each merged server's document ETag, for the next revalidation. */
  readonly etags: ReadonlyMap<string, string | undefined>;
}

interface Entry {
  readonly generation: number;
  readonly checkedAt: number;
  readonly built: Promise<Built>;
}

/** One server's answer: its document's bytes, or `unchanged` after a 304, or nothing when it could not be read. */
type ServerRead = { readonly server: string; readonly etag: string | undefined; readonly body: Buffer } | 'unchanged' | undefined;

export class OpenApiV2Cache {
  private readonly entries = new Map<OpenApiV2Encoding, Entry>();

  constructor(
    private readonly servers: ServerSet,
    private readonly state: RouteState,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  /** The merged document; rejects when `handling`'s own document cannot be read (the port then forwards to it). */
  async merged(handling: string, encoding: OpenApiV2Encoding): Promise<MergedOpenApiV2> {
    const { merged } = await this.current(encoding);
    if (!merged.servers.has(handling)) throw new Error(`the OpenAPI v2 document of ${handling} could not be read`);
    return merged;
  }

  private current(encoding: OpenApiV2Encoding): Promise<Built> {
    const cached = this.entries.get(encoding);
    const at = this.now();
    if (cached && cached.generation === this.state.generation && at - cached.checkedAt < DOCUMENT_MAX_AGE_MS) return cached.built;
    const built = this.refresh(encoding, cached?.built);
    // A failure is kept as long as a success would be: an unreadable server is not read per request.
    built.catch(() => undefined);
    this.entries.set(encoding, { generation: this.state.generation, checkedAt: at, built });
    return built;
  }

  private async refresh(encoding: OpenApiV2Encoding, previousBuild: Promise<Built> | undefined): Promise<Built> {
    const previous = await previousBuild?.catch(() => undefined);
    const servers = this.servers.known().map(({ config, reader }) => ({ name: config.name, reader }));
    const reads = await Promise.all(servers.map((s) => this.read(s.name, s.reader, encoding, previous?.etags.get(s.name))));
    // Every server answered 304 for the document merged last time: nothing changed.
    if (previous && reads.every((r) => r === 'unchanged') && reads.length === previous.merged.servers.size) return previous;
    // Something changed: every server's document is needed again (a 304 left its body unread).
    const documents = await Promise.all(
      reads.map((r, i) => {
        const { name, reader } = servers[i] as (typeof servers)[number];
        return r === 'unchanged' ? this.read(name, reader, encoding, undefined) : r;
      }),
    );
    const read = documents
      .filter((d): d is Exclude<ServerRead, 'unchanged' | undefined> => d !== undefined && d !== 'unchanged')
      .map((d) => ({ ...d, release: this.servers.status(d.server)?.gitVersion }));
    const { body, servers: merged } = merge(encoding, read);
    const etag = `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"`;
    const lastModified = previous?.merged.etag === etag ? previous.merged.lastModified : new Date().toUTCString();
    return {
      merged: { encoding, body, etag, lastModified, servers: new Set(merged) },
      etags: new Map(read.filter((d) => merged.includes(d.server)).map((d) => [d.server, d.etag])),
    };
  }

  private async read(
    server: string,
    reader: ReturnType<ServerSet['known']>[number]['reader'],
    encoding: OpenApiV2Encoding,
    etag: string | undefined,
  ): Promise<ServerRead> {
    if (!reader) return undefined;
    const headers: Record<string, string> = { accept: READ_ACCEPT[encoding], ...(etag ? { 'if-none-match': etag } : {}) };
    try {
      if (reader.getBytes) {
        const res = await reader.getBytes(OPENAPI_V2_PATH, headers);
        if (res.status === 304 && etag) return 'unchanged';
        // A server that answers another form than asked (a stand-in's JSON for protobuf) has none to merge.
        const type = String(res.headers['content-type'] ?? '');
        if (res.status !== 200 || !type.includes(encoding === 'json' ? 'json' : 'protobuf')) return undefined;
        return { server, etag: typeof res.headers.etag === 'string' ? res.headers.etag : undefined, body: res.body };
      }
      // A reader of text only (tests' stand-ins): JSON survives it, protobuf does not.
      if (encoding !== 'json') return undefined;
      const res = await reader.get(OPENAPI_V2_PATH, headers);
      if (res.status === 304 && etag) return 'unchanged';
      return res.status === 200 ? { server, etag: undefined, body: Buffer.from(res.body) } : undefined;
    } catch {
      return undefined;
    }
  }
}

/** The servers' documents merged (openapi-v2-merge.ts's rule), and whose they are: one that does not parse is left out. */
function merge(
  encoding: OpenApiV2Encoding,
  documents: readonly { server: string; release: string | undefined; body: Buffer }[],
): { body: Buffer; servers: string[] } {
  if (encoding === 'json') {
    const parsed = documents.flatMap((d): ServerOpenApiV2<OpenApiV2Json>[] => {
      const doc = parseOpenApiV2Json(d.body.toString('utf8'));
      return doc ? [{ server: d.server, release: d.release, doc }] : [];
    });
    if (parsed.length === 0) throw new Error("no server's OpenAPI v2 document could be read");
    return { body: Buffer.from(JSON.stringify(mergeOpenApiV2Json(parsed))), servers: parsed.map((d) => d.server) };
  }
  const valid = documents.filter((d) => isOpenApiV2Protobuf(d.body)).map((d) => ({ server: d.server, release: d.release, doc: d.body }));
  if (valid.length === 0) throw new Error("no server's OpenAPI v2 document could be read");
  const bytes = mergeOpenApiV2Protobuf(valid);
  return { body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), servers: valid.map((d) => d.server) };
}
