// Watch: newline-delimited JSON events {"type","object"} from a resourceVersion, BOOKMARKs when
// asked, timeoutSeconds, 410 Expired as an ERROR event, and a clean end when the server drains.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { failure } from '../../engine/util/status.js';
import { StoreError, type KubeObject, type StoreEvent, type StoreWatch } from '../store/store.js';
import { apiVersionOf, type ApiContext } from './context.js';
import { badRequest } from './errors.js';
import { contentTypeOf, negotiateObjectForm, present, selectorsOf } from './objects.js';
import { toTable } from './table.js';
import type { ResourceRequest } from './request-info.js';

/** How often a watch with allowWatchBookmarks=true gets a BOOKMARK (kube-apiserver: about a minute). */
export const BOOKMARK_INTERVAL_MS = 5_000;

export function serveWatch(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, query: URLSearchParams): void {
  const form = negotiateObjectForm(req.headers.accept);
  const { labelMatches, fieldMatches } = selectorsOf(query, rr);
  const rvText = query.get('resourceVersion');
  if (rvText !== null && rvText !== '' && !/^\d+$/.test(rvText))
    throw badRequest(`resourceVersion: Invalid value: "${rvText}": must be an integer`);
  const fromResourceVersion = rvText ? Number(rvText) : undefined;

  res.writeHead(200, { 'Content-Type': contentTypeOf(form), 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();

  let firstTableEvent = true;
  const encode = (type: string, obj: KubeObject): string => {
    let object: unknown;
    if (form.kind === 'table') {
      object = toTable([obj], rr, form, query.get('includeObject'), obj.metadata.resourceVersion, firstTableEvent);
      firstTableEvent = false;
    } else {
      object = present(obj, rr);
    }
    return JSON.stringify({ type, object }) + '\n';
  };

  let ended = false;
  let storeWatch: StoreWatch | undefined;
  const timers: NodeJS.Timeout[] = [];
  const end = () => {
    if (ended) return;
    ended = true;
    storeWatch?.stop();
    for (const t of timers) clearTimeout(t);
    ctx.longRunning.delete(end);
    if (!res.writableEnded) res.end();
  };
  ctx.longRunning.add(end);
  res.on('close', end);
  req.on('close', end);

  const onEvent = (event: StoreEvent) => {
    if (ended) return;
    if (!labelMatches(event.object) || !fieldMatches(event.object)) return;
    res.write(encode(event.type, event.object));
  };
  try {
    storeWatch = ctx.store.watch(
      { group: rr.group, resource: rr.resource },
      { namespace: rr.catalog.namespaced ? rr.namespace : undefined },
      fromResourceVersion,
      onEvent,
    );
  } catch (err) {
    if (err instanceof StoreError && err.reason === 'Expired') {
      res.write(JSON.stringify({ type: 'ERROR', object: failure(410, 'Expired', err.message) }) + '\n');
      end();
      return;
    }
    end();
    throw err;
  }

  const sendBookmark = () => {
    if (ended) return;
    const bookmark = {
      kind: rr.catalog.kind,
      apiVersion: apiVersionOf(rr.group, rr.version),
      metadata: { resourceVersion: String(ctx.store.currentResourceVersion()) },
    };
    res.write(JSON.stringify({ type: 'BOOKMARK', object: bookmark }) + '\n');
    timers.push(setTimeout(sendBookmark, BOOKMARK_INTERVAL_MS).unref());
  };
  if (query.get('allowWatchBookmarks') === 'true') sendBookmark();

  const timeoutSeconds = Number(query.get('timeoutSeconds') ?? 0);
  if (Number.isFinite(timeoutSeconds) && timeoutSeconds > 0) timers.push(setTimeout(end, timeoutSeconds * 1000).unref());
  // A draining server ends new watches after their replay, as it ends the open ones.
  if (ctx.isDraining()) end();
}
