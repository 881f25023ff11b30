// A controller's reflector, as client-go runs one: list, then watch from the list's resourceVersion;
// on a clean end, watch again from the last one seen; on 410 Gone, list again. What each watch
// received is kept per segment (watch-log.ts) so a run can be judged for lost events.
import { request } from '../../engine/upstream/undici.js';
import { TRAFFIC_CLIENTS, type TrafficClient } from './clients.js';
import type { Gvr } from './gvrs.js';
import type { TrafficRun } from './run.js';
import type { WatchSegment } from './watch-log.js';
import { answeredByOf, parseObject, sleep } from './wire.js';

const WATCH_BACKOFF_MS = [250, 500, 1000, 2000];

type WatchEnd = { kind: 'ended' | 'failed' | 'gone' | 'stopped'; rv?: string };

/** A controller's reflector: list, then watch from the list's resourceVersion; on a clean end, watch again from the last one seen; on 410 Gone, list again. */
export async function reflector(run: TrafficRun, g: Gvr, client: TrafficClient = TRAFFIC_CLIENTS.garbageCollector): Promise<void> {
  const { summary, ns } = run;
  let rv: string | undefined;
  let failures = 0;
  let segment: WatchSegment | undefined;
  const backoff = async () => {
    await sleep(WATCH_BACKOFF_MS[Math.min(failures++, WATCH_BACKOFF_MS.length - 1)] as number, run.watchAbort.signal);
  };
  while (!run.stopping) {
    if (rv === undefined) {
      const res = await run.send('list', g, 'GET', `${run.collection(g)}?limit=500`, undefined, false, client);
      if (!res) return;
      const listRv = (res.json?.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
      if (res.status !== 200 || typeof listRv !== 'string') {
        await backoff();
        continue;
      }
      rv = listRv;
      segment = { gvr: g.key, namespace: g.namespaced ? ns : '', fromRv: Number(listRv), rvs: [], lastRv: Number(listRv), streams: 0 };
      summary.watchSegments.push(segment);
    }
    if (!(await run.bucket.take())) return;
    const outcome = await watchOnce(run, g, rv, segment as WatchSegment, client);
    if (outcome.kind === 'stopped') return;
    if (outcome.kind === 'gone') {
      rv = undefined;
      summary.watches.relisted++;
    } else if (outcome.rv) rv = outcome.rv;
    if (outcome.kind === 'ended') failures = 0;
    else await backoff();
    summary.watchReconnects++;
  }
}

async function watchOnce(run: TrafficRun, g: Gvr, rv: string, segment: WatchSegment, client: TrafficClient): Promise<WatchEnd> {
  const summary = run.summary;
  const target = run.nextTarget();
  const path = `${run.collection(g)}?allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(rv)}&timeoutSeconds=${300 + Math.floor(run.random() * 300)}&watch=true`;
  const started = performance.now();
  const headers = run.headersOf(client);
  let lastRv: string | undefined;
  let opened = false;
  const held = (next: string) => {
    lastRv = next;
    segment.lastRv = Math.max(segment.lastRv, Number(next));
  };
  try {
    const res = await request(`${target}${path}`, { dispatcher: run.agent, headers, signal: run.watchAbort.signal });
    const answeredBy = answeredByOf(res.headers);
    run.record({
      at: Date.now(),
      kind: 'watch',
      method: 'GET',
      path,
      gvr: g.key,
      status: res.statusCode,
      ms: performance.now() - started,
      target,
      userAgent: client.userAgent,
      ...(answeredBy ? { answeredBy } : {}),
    });
    if (res.statusCode !== 200) {
      await res.body.text();
      summary.watches.refused++;
      return { kind: res.statusCode === 410 ? 'gone' : 'failed' };
    }
    opened = true;
    summary.watches.opened++;
    if (segment.streams++ > 0) summary.watches.resumed++;
    let buffered = '';
    for await (const chunk of res.body) {
      buffered += (chunk as Buffer).toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const event = parseObject(buffered.slice(0, nl)) as
          { type?: string; object?: { code?: number; metadata?: { resourceVersion?: string } } } | undefined;
        buffered = buffered.slice(nl + 1);
        if (!event) continue; // a line that is not JSON: a reflector logs it and moves on
        summary.watchEvents++;
        if (event.type === 'ERROR') {
          const gone = event.object?.code === 410;
          if (!gone) summary.watches.errored++;
          else summary.watches.endedCleanly++;
          return { kind: gone ? 'gone' : 'failed', ...(lastRv ? { rv: lastRv } : {}) };
        }
        const eventRv = event.object?.metadata?.resourceVersion;
        if (!eventRv) continue;
        if (event.type !== 'BOOKMARK') segment.rvs.push(Number(eventRv));
        held(eventRv);
      }
    }
    summary.watches.endedCleanly++;
    return { kind: 'ended', ...(lastRv ? { rv: lastRv } : {}) };
  } catch (err) {
    if (run.watchAbort.signal.aborted) {
      if (opened) summary.watches.stoppedByClient++;
      return { kind: 'stopped' };
    }
    if (opened) summary.watches.errored++;
    else {
      summary.watches.refused++;
      // No answer at all (refused, reset before headers): a request that failed.
      run.record({
        at: Date.now(),
        kind: 'watch',
        method: 'GET',
        path,
        gvr: g.key,
        status: 0,
        ms: performance.now() - started,
        target,
        userAgent: client.userAgent,
        error: (err as Error).message,
      });
    }
    return { kind: 'failed', ...(lastRv ? { rv: lastRv } : {}) };
  }
}
