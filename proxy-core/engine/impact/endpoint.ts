// GET /.peerscope/impact[?to=RELEASE] on the local port: the upgrade-impact report as JSON, against a
// release of the catalog (default: the next release above the current servers').
import type { ServerResponse } from 'node:http';
import type { ImpactSource } from './of-core.js';
import { writeStatus } from '../util/write-status.js';
import { InputError } from '../util/input-error.js';
import { failure } from '../util/status.js';
import { impactReportOf } from './of-core.js';

export function serveImpact(core: ImpactSource, rawUrl: string, res: ServerResponse): void {
  const q = rawUrl.indexOf('?');
  const to = new URLSearchParams(q < 0 ? '' : rawUrl.slice(q + 1)).get('to') ?? undefined;
  let body: string;
  try {
    body = JSON.stringify(impactReportOf(core, to || undefined));
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    writeStatus(res, failure(400, 'BadRequest', err.message));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
