// Rendering a request spec into the bytes on the wire with a fresh id, and the model of what the
// port must do with it (forward, refuse with which codes, answer itself, either).
import { browserRefuses, isDiscoveryRoot, LOOPBACK_OK } from './admission-rules.js';
import { CLIENT_TOKEN, PORT_MAX_HEAD } from './cluster.js';
import { goDecodePath } from './kube-path.js';
import type { RequestSpec } from './request-spec.js';
import type { Expectation, Rendered } from './rendered.js';
import { FUZZ_ID_HEADER, FUZZ_REPLY_HEADER } from './upstream.js';
import { chunkedBytes, INVALID_LINES } from './wire-pieces.js';

export function render(spec: RequestSpec, id: string, port: number): Rendered {
  const method = spec.method.name;
  const target =
    spec.target.form === 'origin'
      ? `${spec.target.path}${spec.target.query ? `?${spec.target.query}` : ''}`
      : spec.target.form === 'absolute'
        ? spec.target.url
        : spec.target.form === 'asterisk'
          ? '*'
          : spec.target.authority;
  const headers: [string, string][] = [];
  if (spec.host.kind === 'ok' || spec.host.kind === 'foreign') headers.push(['Host', spec.host.value]);
  if (spec.host.kind === 'empty') headers.push(['Host', '']);
  if (spec.host.kind === 'duplicate') for (const v of spec.host.values) headers.push(['Host', v]);
  headers.push([FUZZ_ID_HEADER, id], [FUZZ_REPLY_HEADER, spec.reply]);
  if (spec.browser?.origin !== undefined) headers.push(['Origin', spec.browser.origin]);
  if (spec.browser?.fetchSite !== undefined) headers.push(['Sec-Fetch-Site', spec.browser.fetchSite]);
  for (const h of spec.identity) headers.push([h[0], h[1]]);
  const upgrade = spec.upgrade !== undefined && spec.method.cls !== 'connect';
  const connection = upgrade ? ['Upgrade', ...(spec.connection ? [spec.connection] : [])].join(', ') : spec.connection;
  if (connection !== undefined) headers.push(['Connection', connection]);
  for (const h of spec.hop) if (!(upgrade && h[0] === 'upgrade')) headers.push([h[0], h[1]]);
  if (upgrade) headers.push(['Upgrade', spec.upgrade as string]);
  if (spec.peerProxied !== undefined) headers.push(['X-Kubernetes-Peer-Proxied', spec.peerProxied]);
  if (spec.authorization) headers.push(['Authorization', CLIENT_TOKEN]);
  if (spec.accept !== undefined) headers.push(['Accept', spec.accept]);
  if (spec.expect !== undefined) headers.push(['Expect', spec.expect]);
  for (const h of spec.extra) headers.push([h[0], h[1]]);

  let body: Buffer = Buffer.alloc(0);
  let wireBody: Buffer = Buffer.alloc(0);
  let badFraming = false;
  let mayHang = false;
  let mayAnswerTwice = false;
  let coded = false;
  let midBodyError = false;
  const b = spec.body;
  if (b.kind === 'length') {
    body = Buffer.from(b.body);
    wireBody = body;
    headers.push(['Content-Type', 'application/json'], ['Content-Length', String(body.length)]);
  } else if (b.kind === 'chunked') {
    body = Buffer.from(b.body);
    wireBody = chunkedBytes(b);
    headers.push(['Content-Type', 'application/json'], ['Transfer-Encoding', b.upper ? 'Chunked' : 'chunked']);
  } else if (b.kind === 'coded') {
    coded = true;
    body = Buffer.from(b.body);
    wireBody = chunkedBytes({ kind: 'chunked', body: b.body, cuts: [], ext: false, upper: false, trailers: false });
    headers.push(['Transfer-Encoding', b.te]);
  } else if (b.kind === 'bad') {
    badFraming = true;
    const v = b.variant;
    const add = (n: string, val: string) => headers.push([n, val]);
    if (v === 'cl-and-te') {
      add('Content-Length', '3');
      add('Transfer-Encoding', 'chunked');
      wireBody = Buffer.from('3\r\nabc\r\n0\r\n\r\n');
    }
    if (v === 'cl-not-a-number') {
      add('Content-Length', 'abc');
      wireBody = Buffer.from('abc');
    }
    if (v === 'cl-negative') {
      add('Content-Length', '-3');
      wireBody = Buffer.from('abc');
    }
    if (v === 'cl-duplicate') {
      add('Content-Length', '3');
      add('Content-Length', '4');
      wireBody = Buffer.from('abcd');
    }
    if (v === 'cl-list') {
      add('Content-Length', '3, 3');
      wireBody = Buffer.from('abc');
    }
    // Chunk errors show only in the body, after the request went to the handler (and upstream).
    if (v === 'chunk-size-garbage') {
      add('Transfer-Encoding', 'chunked');
      wireBody = Buffer.from('zz\r\nabc\r\n0\r\n\r\n');
      midBodyError = true;
    }
    if (v === 'chunk-no-crlf') {
      add('Transfer-Encoding', 'chunked');
      wireBody = Buffer.from('3\r\nabcX0\r\n\r\n');
      midBodyError = true;
    }
    // Refused (400 by the parser, or 501 by the port, which then closes); 'abc' may be read as a next request.
    if (v === 'te-unknown') {
      add('Transfer-Encoding', 'identity');
      wireBody = Buffer.from('abc');
      mayAnswerTwice = true;
    }
    if (v === 'short-body') {
      add('Content-Length', '100');
      wireBody = Buffer.from('only a part');
      mayHang = true;
    }
    if (v === 'long-body') {
      add('Content-Length', '3');
      wireBody = Buffer.from('abcGARBAGE-AFTER-THE-BODY\r\n\r\n');
      mayAnswerTwice = true;
    }
  }

  const invalidLine = spec.invalidHeader ? INVALID_LINES[spec.invalidHeader] : undefined;
  const lines = [`${method} ${target} ${spec.version}`, ...headers.map(([n, v]) => `${n}: ${v}`), ...(invalidLine ? [invalidLine] : [])];
  let headText = `${lines.join('\r\n')}\r\n`;
  if (spec.padTo > headText.length) {
    const pad = spec.padTo - headText.length - 12;
    if (pad > 0) {
      headers.push(['X-Padding', 'p'.repeat(pad)]);
      headText += `X-Padding: ${'p'.repeat(pad)}\r\n`;
    }
  }
  const bytes = Buffer.concat([Buffer.from(`${headText}\r\n`, 'latin1'), wireBody]);
  const headBytes = headText.length + 2;

  // --- What the port must do. Each applicable refusal adds its code; none → forward.
  const codes = new Set<number>();
  let expect: Expectation = 'forward';
  let either = false;
  const lower = (n: string) => n.toLowerCase();
  const hostLines = headers.filter(([n]) => lower(n) === 'host');
  const http11 = spec.version === 'HTTP/1.1';
  // Node's parser takes HTTP/1.0 and, leniently, HTTP/2.0 and 0.9 request lines (forwarded as 1.1).
  const oddVersion = spec.version === 'HTTP/2.0' || spec.version === 'HTTP/0.9';
  // Authority-form (host:port) is for CONNECT only; the parser refuses it on any other method.
  const authorityForm = spec.target.form === 'authority' && spec.method.cls !== 'connect';
  const connect = spec.method.cls === 'connect';
  const parserRefuses =
    authorityForm ||
    spec.method.cls === 'unknown' ||
    (!http11 && spec.version !== 'HTTP/1.0' && !oddVersion) ||
    invalidLine !== undefined ||
    [...target].some((c) => c.charCodeAt(0) <= 0x20 || c.charCodeAt(0) >= 0x7f) ||
    (!connect && ((badFraming && !mayHang && !mayAnswerTwice && !midBodyError) || (b.kind === 'bad' && b.variant === 'te-unknown'))) ||
    headBytes > PORT_MAX_HEAD;
  if (parserRefuses) {
    // Node's parser answers (clientError): 400, or 431 for an oversized head.
    codes.add(400);
    if (headBytes > PORT_MAX_HEAD - 2_048) codes.add(431);
    // A coding other than chunked: the parser refuses it, or the port does (501), depending on framing.
    if (!connect && b.kind === 'bad' && b.variant === 'te-unknown') {
      codes.add(501);
      // When the parser lets it through, an unmet Expect is answered first.
      const e = spec.expect?.toLowerCase();
      if (http11 && !upgrade && e !== undefined && e !== '100-continue') codes.add(417);
    }
    // Oversized heads just below the limit are at the parser's discretion.
    if (headBytes > PORT_MAX_HEAD - 2_048 && headBytes < PORT_MAX_HEAD + 2_048) either = true;
  } else if (spec.method.cls === 'connect') {
    codes.add(405);
    // Framing headers are checked when the head ends, even on a CONNECT.
    if (b.kind === 'bad' || b.kind === 'coded') codes.add(400);
  } else {
    const expectValue = spec.expect?.toLowerCase();
    // Node checks Expect before the request reaches a handler (not for upgrades).
    if (http11 && !upgrade && expectValue !== undefined && expectValue !== '100-continue') codes.add(417);
    const path = spec.target.form === 'origin' ? spec.target.path : undefined;
    if (path === undefined) codes.add(400);
    const control = path !== undefined && path.startsWith('/.peerscope/');
    const hostOk = hostLines.length === 1 && LOOPBACK_OK(port).has((hostLines[0]?.[1] ?? '').toLowerCase());
    if (!hostOk) codes.add(hostLines.length > 1 ? 400 : 403);
    if (hostLines.length > 1) codes.add(403);
    if (control && upgrade) codes.add(400);
    // A request a browser marks as from another origin (the port accepts none): 403, plain,
    // upgrade or control alike. The port's own origin is http://<the Host sent>.
    if (browserRefuses(spec.browser, hostLines.length === 1 ? hostLines[0]?.[1] : undefined)) codes.add(403);
    if (control && codes.size === 0) expect = 'own';
    if (path !== undefined && !control && goDecodePath(path) === undefined) codes.add(400);
    if (coded && !upgrade) codes.add(501);
    if (
      codes.size === 0 &&
      expect === 'forward' &&
      path !== undefined &&
      isDiscoveryRoot(goDecodePath(path) ?? '') &&
      (method === 'GET' || method === 'HEAD')
    ) {
      // Merged discovery (and by P8 legacy /apis and the OpenAPI v3 index) is the port's own answer
      // (an upgrade of it a 400 Status); the nopeer profile and other forms are forwarded.
      either = true;
    }
  }
  if (connect) {
    // Whatever follows a CONNECT head is tunnel data, never parsed.
    midBodyError = false;
    mayHang = false;
    mayAnswerTwice = false;
  }
  if (midBodyError) {
    mayAnswerTwice = true;
    // The parser fails on the body in the same tick the head was handed over: its 400 may come first.
    if (codes.size > 0) codes.add(400);
  }
  if (coded && upgrade) either = true;
  // Refusals are decided on the head, before any body byte: framing oddities never relax them.
  if (codes.size > 0) expect = either ? 'either' : 'refuse';
  else if (either || mayHang || mayAnswerTwice || spec.method.cls === 'odd' || spec.version === 'HTTP/1.0' || oddVersion) expect = 'either';
  const connectionClose = connection !== undefined && connection.split(',').some((t) => t.trim().toLowerCase() === 'close');
  const terminalReason = upgrade
    ? 'upgrade'
    : parserRefuses
      ? 'parser-refuses'
      : spec.method.cls === 'connect'
        ? 'connect'
        : badFraming
          ? `framing-${(b as { variant?: string }).variant}`
          : coded
            ? 'coded'
            : !http11
              ? 'version'
              : connectionClose
                ? 'connection-close'
                : spec.reply === 'cut-mid-body'
                  ? 'cut'
                  : undefined;
  const terminal = terminalReason !== undefined;
  const path = spec.target.form === 'origin' ? spec.target.path : '';
  return {
    id,
    spec,
    bytes,
    method,
    target,
    head: method === 'HEAD',
    upgrade: upgrade && !parserRefuses,
    headers,
    body,
    expect,
    codes: [...codes],
    terminal,
    terminalReason,
    mayHang,
    mayAnswerTwice,
    decodedPath: goDecodePath(path),
  };
}
