// pods/log: a few plain-text lines, or with follow=true a line a second until the client leaves.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiContext } from './context.js';
import { fromStoreError } from './errors.js';
import type { ResourceRequest } from './request-info.js';
import { StoreError } from '../store/store.js';

export function servePodLog(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, query: URLSearchParams): void {
  const gr = { group: rr.group, resource: rr.resource };
  const pod = ctx.store.get(gr, rr.namespace ?? '', rr.name ?? '');
  if (!pod) throw fromStoreError(new StoreError('NotFound', `${rr.resource} "${rr.name}" not found`), gr, rr.name ?? '');
  const container = query.get('container') ?? 'main';
  let n = 0;
  const line = () => `${new Date().toISOString()} ${ctx.serverName} ${rr.namespace}/${rr.name}/${container}: simulated log line ${++n}\n`;
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
  const tail = Number(query.get('tailLines') ?? 3);
  const count = Number.isInteger(tail) && tail >= 0 ? Math.min(tail, 100) : 3;
  for (let i = 0; i < count; i++) res.write(line());
  if (query.get('follow') !== 'true') {
    res.end();
    return;
  }
  const timer = setInterval(() => res.write(line()), 1000);
  const end = () => {
    clearInterval(timer);
    ctx.longRunning.delete(end);
    if (!res.writableEnded) res.end();
  };
  ctx.longRunning.add(end);
  req.on('close', end);
  res.on('close', end);
}
