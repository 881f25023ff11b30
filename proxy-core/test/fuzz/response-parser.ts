// A small strict HTTP/1.1 response parser for the port fuzz: fed the raw bytes of one connection,
// it cuts them into responses and refuses anything RFC 9112 does not allow — a status line that is
// not `HTTP/1.x DDD reason`, a header name that is not a token, a CR, LF or NUL inside a value,
// obs-fold, conflicting Content-Length, Transfer-Encoding other than chunked, bad chunk framing,
// bytes after a response that must be the last. Interim 1xx responses are returned too; the
// caller knows which request each final response answers (HEAD and upgrades change the framing).

export interface ParsedResponse {
  readonly version: string;
  readonly status: number;
  readonly reason: string;
  /** [name, value] in order, names as sent. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
  /** The body ran until the connection closed (no Content-Length, not chunked). */
  readonly closeDelimited: boolean;
  /** A 1xx other than 101: the final response follows. */
  readonly interim: boolean;
}

export class ResponseSyntaxError extends Error {
  override readonly name = 'ResponseSyntaxError';
  /** Well-formed so far, but the connection closed before the response ended (a cut, not bad syntax). */
  constructor(
    message: string,
    readonly truncated = false,
  ) {
    super(message);
  }
}

/** What the parser must know of the request a response answers. */
export interface Expecting {
  readonly head: boolean;
  /** An upgrade request: a 101 ends the HTTP part of the connection. */
  readonly upgrade: boolean;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d) ([\t\x20-\x7e\x80-\xff]*)$/;
// Field values: visible ASCII, obs-text, space and tab; never CR, LF, NUL or other controls.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const MAX_HEAD = 256 * 1024;

export function headerValues(r: Pick<ParsedResponse, 'headers'>, name: string): string[] {
  const lower = name.toLowerCase();
  return r.headers.filter(([n]) => n.toLowerCase() === lower).map(([, v]) => v);
}

export function headerValue(r: Pick<ParsedResponse, 'headers'>, name: string): string | undefined {
  const v = headerValues(r, name);
  return v.length ? v.join(', ') : undefined;
}

/**
 * Incremental: push() bytes as they arrive, then next() for each request in order. next() returns
 * a response, `undefined` when more bytes are needed, or throws ResponseSyntaxError.
 */
export class ResponseParser {
  private buf: Buffer = Buffer.alloc(0);
  private closed = false;
  /** After a 101 or a close-delimited body, nothing more is HTTP. */
  private finished = false;
  /** After a response that said Connection: close, the client reads nothing more (RFC 9112 §9.6). */
  private closing = false;
  /** Bytes that arrived after a Connection: close response and were ignored. */
  ignoredAfterClose = 0;

  push(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
  }

  /** The peer closed the connection: a close-delimited body ends here. */
  end(): void {
    this.closed = true;
  }

  /** Bytes received but not yet part of a parsed response. */
  get pending(): number {
    return this.buf.length;
  }

  next(expecting: Expecting): ParsedResponse | undefined {
    const r = this.parse(expecting);
    if (
      r &&
      !r.interim &&
      headerValues(r, 'connection')
        .join(',')
        .toLowerCase()
        .split(',')
        .some((t) => t.trim() === 'close')
    )
      this.closing = true;
    return r;
  }

  private parse(expecting: Expecting): ParsedResponse | undefined {
    if (this.closing) {
      this.ignoredAfterClose += this.buf.length;
      this.buf = Buffer.alloc(0);
      return undefined;
    }
    if (this.finished) {
      if (this.buf.length > 0) throw new ResponseSyntaxError(`${this.buf.length} bytes after a response that ends the connection`);
      return undefined;
    }
    const headEnd = this.buf.indexOf('\r\n\r\n');
    if (headEnd < 0) {
      if (this.buf.length > MAX_HEAD) throw new ResponseSyntaxError('response head larger than 256 KiB without an end');
      if (this.closed && this.buf.length > 0)
        throw new ResponseSyntaxError(
          `connection closed inside a response head: ${JSON.stringify(this.buf.subarray(0, 200).toString('latin1'))}`,
          true,
        );
      return undefined;
    }
    const head = this.buf.subarray(0, headEnd).toString('latin1');
    const lines = head.split('\r\n');
    const statusLine = lines[0] ?? '';
    const m = STATUS_LINE.exec(statusLine);
    if (!m) throw new ResponseSyntaxError(`bad status line ${JSON.stringify(statusLine.slice(0, 200))}`);
    const headers: [string, string][] = [];
    for (const line of lines.slice(1)) {
      if (line.includes('\n') || line.includes('\r'))
        throw new ResponseSyntaxError(`bare CR or LF in header line ${JSON.stringify(line.slice(0, 200))}`);
      if (line.startsWith(' ') || line.startsWith('\t'))
        throw new ResponseSyntaxError(`obs-fold continuation line ${JSON.stringify(line.slice(0, 200))}`);
      const colon = line.indexOf(':');
      if (colon <= 0) throw new ResponseSyntaxError(`header line without a name ${JSON.stringify(line.slice(0, 200))}`);
      const name = line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
      if (!TOKEN.test(name)) throw new ResponseSyntaxError(`header name is not a token: ${JSON.stringify(name)}`);
      if (!FIELD_VALUE.test(value))
        throw new ResponseSyntaxError(`invalid byte in the value of ${name}: ${JSON.stringify(value.slice(0, 200))}`);
      headers.push([name, value]);
    }
    const status = Number(m[2]);
    const base = { version: `1.${m[1]}`, status, reason: m[3] ?? '', headers };
    const bodyStart = headEnd + 4;
    const te = headerValues(base, 'transfer-encoding');
    const cl = headerValues(base, 'content-length');

    if (status >= 100 && status < 200) {
      if (te.length || cl.length) throw new ResponseSyntaxError(`${status} with a body framing header`);
      this.buf = this.buf.subarray(bodyStart);
      if (status === 101) {
        if (!expecting.upgrade) throw new ResponseSyntaxError('101 Switching Protocols to a request that asked for no upgrade');
        this.finished = true;
        // What follows belongs to the upgraded protocol.
        this.buf = Buffer.alloc(0);
        return { ...base, body: Buffer.alloc(0), closeDelimited: false, interim: false };
      }
      return { ...base, body: Buffer.alloc(0), closeDelimited: false, interim: true };
    }
    if (te.length && cl.length) throw new ResponseSyntaxError('both Transfer-Encoding and Content-Length');
    const noBody = expecting.head || status === 204 || status === 304;
    if (status === 204 && (te.length || (cl.length && cl.some((v) => v !== '0')))) throw new ResponseSyntaxError('204 with a body');
    if (noBody) {
      this.buf = this.buf.subarray(bodyStart);
      return { ...base, body: Buffer.alloc(0), closeDelimited: false, interim: false };
    }
    if (te.length) {
      const codings = te
        .join(',')
        .split(',')
        .map((s) => s.trim().toLowerCase());
      if (codings.length !== 1 || codings[0] !== 'chunked')
        throw new ResponseSyntaxError(`unsupported Transfer-Encoding ${JSON.stringify(te)}`);
      const chunked = this.parseChunked(bodyStart);
      if (!chunked) return undefined;
      this.buf = this.buf.subarray(chunked.end);
      return { ...base, body: chunked.body, closeDelimited: false, interim: false };
    }
    if (cl.length) {
      const values = new Set(
        cl
          .join(',')
          .split(',')
          .map((s) => s.trim()),
      );
      if (values.size !== 1) throw new ResponseSyntaxError(`conflicting Content-Length ${JSON.stringify(cl)}`);
      const text = [...values][0] as string;
      if (!/^\d{1,15}$/.test(text)) throw new ResponseSyntaxError(`invalid Content-Length ${JSON.stringify(text)}`);
      const length = Number(text);
      if (this.buf.length - bodyStart < length) {
        if (this.closed)
          throw new ResponseSyntaxError(`connection closed after ${this.buf.length - bodyStart} of ${length} body bytes`, true);
        return undefined;
      }
      const body = this.buf.subarray(bodyStart, bodyStart + length);
      this.buf = this.buf.subarray(bodyStart + length);
      return { ...base, body, closeDelimited: false, interim: false };
    }
    // No framing: the body runs to the end of the connection (allowed, RFC 9112 §6.3 item 8).
    if (!this.closed) return undefined;
    const body = this.buf.subarray(bodyStart);
    this.buf = Buffer.alloc(0);
    this.finished = true;
    return { ...base, body, closeDelimited: true, interim: false };
  }

  private parseChunked(start: number): { body: Buffer; end: number } | undefined {
    const parts: Buffer[] = [];
    let at = start;
    for (;;) {
      const lineEnd = this.buf.indexOf('\r\n', at);
      if (lineEnd < 0) return this.needMore('inside a chunk size line');
      const line = this.buf.subarray(at, lineEnd).toString('latin1');
      const sizeText = line.split(';')[0]?.trim() ?? '';
      if (!/^[0-9a-fA-F]{1,12}$/.test(sizeText)) throw new ResponseSyntaxError(`bad chunk size line ${JSON.stringify(line.slice(0, 100))}`);
      const size = Number.parseInt(sizeText, 16);
      at = lineEnd + 2;
      if (size === 0) {
        // Trailer section, then the empty line.
        for (;;) {
          const end = this.buf.indexOf('\r\n', at);
          if (end < 0) return this.needMore('inside the trailers');
          const trailer = this.buf.subarray(at, end).toString('latin1');
          at = end + 2;
          if (trailer === '') return { body: Buffer.concat(parts), end: at };
          const colon = trailer.indexOf(':');
          if (colon <= 0 || !TOKEN.test(trailer.slice(0, colon)))
            throw new ResponseSyntaxError(`bad trailer ${JSON.stringify(trailer.slice(0, 100))}`);
        }
      }
      if (this.buf.length < at + size + 2) return this.needMore(`inside a chunk of ${size} bytes`);
      parts.push(this.buf.subarray(at, at + size));
      if (this.buf[at + size] !== 13 || this.buf[at + size + 1] !== 10) throw new ResponseSyntaxError('chunk data not followed by CRLF');
      at += size + 2;
    }
  }

  private needMore(where: string): undefined {
    if (this.closed) throw new ResponseSyntaxError(`connection closed ${where}`, true);
    return undefined;
  }
}
