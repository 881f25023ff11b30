// The Server-Sent Events stream of the core's pushed events (GET /api/events), with a heartbeat.
import type { ServerResponse } from 'node:http';
import type { CoreEvent } from '../../contract/client.js';
import type { CoreService } from '../service/service.js';

export function openEventStream(res: ServerResponse, service: CoreService, heartbeatMs: number, streams: Set<ServerResponse>): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write('retry: 2000\n\n');
  streams.add(res);
  // A client too slow to read loses routing batches (it is told how many), never server or table news.
  let congested = false;
  let droppedBatches = 0;
  res.on('drain', () => {
    congested = false;
  });
  const send = (e: CoreEvent) => {
    if (e.type === 'routing' && congested) {
      droppedBatches++;
      return;
    }
    const ok = res.write(`data: ${JSON.stringify(droppedBatches && e.type === 'routing' ? { ...e, droppedBatches } : e)}\n\n`);
    if (e.type === 'routing') droppedBatches = 0;
    if (!ok) congested = true;
  };
  const unsubscribe = service.subscribe(send);
  const heartbeat = setInterval(() => res.write(': ping\n\n'), heartbeatMs);
  const end = () => {
    clearInterval(heartbeat);
    unsubscribe();
    streams.delete(res);
  };
  // The response's close is the connection's end (a request's 'close' can come earlier).
  res.on('close', end);
}
