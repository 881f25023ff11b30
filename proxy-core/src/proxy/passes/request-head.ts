// What the port refuses in a request head that Node's parser lets through, because the port and
// the apiserver behind it could read the message differently (RFC 9112; Go's net/http, in front
// of every kube-apiserver, refuses the same):
// - more than one Host line: 400 (RFC 9112 §3.2). Node keeps the first, so the host check would
//   judge one value while another rode along;
// - a Transfer-Encoding other than exactly `chunked`: 501. Node removes the chunked framing but
//   leaves the other coding (gzip, …) on the body, and a forwarded body without its coding is
//   another message.
import type { IncomingMessage } from 'node:http';
import { failure, type Status } from '../../util/status.js';

export function checkRequestHead(req: IncomingMessage): Status | undefined {
  const raw = req.rawHeaders;
  let hosts = 0;
  let codings = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 4 && name.toLowerCase() === 'host') hosts++;
    else if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') codings++;
  }
  if (hosts > 1) return failure(400, 'BadRequest', `the request has ${hosts} Host headers; exactly one is allowed`);
  const te = req.headers['transfer-encoding'];
  if (te !== undefined && (codings > 1 || te.trim().toLowerCase() !== 'chunked')) {
    return failure(501, '', `unsupported Transfer-Encoding ${JSON.stringify(te.slice(0, 200))}: only chunked is accepted`);
  }
  return undefined;
}
