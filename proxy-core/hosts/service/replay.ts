// The contract's replay call: a page of the recording's events in a window (contract/replay.ts), read
// from whichever recording `reader` gives — the live session's own, or one opened from a file — and
// answered in the live stream's shapes. Only what the recording keeps is filled in: the object's name
// was never kept (a path shows "…" where it was), nor bytes, query, headers beyond the user agent or body.
import type { CoreCalls } from '../../contract/client.js';
import { clusterOutcomes, type ClusterEvent, type ClusterOutcome } from '../../contract/cluster.js';
import { routeOutcomes, type RouteOutcome, type RoutingEvent } from '../../contract/events.js';
import { getRecordedEventsArgsSchema } from '../../contract/replay.js';
import type { RecordedEvent, RecordingReader } from '../../engine/recording/reader.js';

export type ReplayCalls = Pick<CoreCalls, 'getRecordedEvents'>;

export function replayCalls(reader: () => RecordingReader): ReplayCalls {
  return {
    async getRecordedEvents(args) {
      const { from, to, after, limit } = getRecordedEventsArgsSchema.parse(args);
      const page = reader().eventsPage({ from, to }, limit, after);
      const port: RoutingEvent[] = [];
      const cluster: ClusterEvent[] = [];
      // A page holds thousands of events of a few hundred kinds: each request's shape is made once.
      const requests = new Map<string, RecordedRequest>();
      const request = (e: RecordedEvent) => {
        const key = `${e.gvr}\u0000${e.namespace}`;
        let r = requests.get(key);
        if (!r) requests.set(key, (r = requestOf(e.gvr, e.namespace)));
        return r;
      };
      for (const e of page.events) {
        if (e.source === 'port') port.push(routingEventOf(e, request(e)));
        else cluster.push(clusterEventOf(e, request(e)));
      }
      return { port, cluster, through: page.next?.at ?? to, next: page.next };
    },
  };
}

/** The request as recorded: its GVR (the writer's "group/version/resource[/subresource]", the core group as "core") or a non-resource path. */
interface RecordedRequest {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly path: string;
}

export function requestOf(gvr: string, namespace: string): RecordedRequest {
  if (gvr.startsWith('/') || !gvr.includes('/')) return { group: '', version: '', resource: '', subresource: '', path: gvr };
  const [g = '', version = '', resource = '', subresource = ''] = gvr.split('/');
  const group = g === 'core' ? '' : g;
  const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const scoped = namespace ? `${base}/namespaces/${namespace}/${resource}` : `${base}/${resource}`;
  return { group, version, resource, subresource, path: subresource ? `${scoped}/…/${subresource}` : scoped };
}

const METHOD_OF: Record<string, string> = {
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETE',
};

function routingEventOf(e: RecordedEvent & { row: number }, request: RecordedRequest): RoutingEvent {
  const outcome = (routeOutcomes as readonly string[]).includes(e.outcome) ? (e.outcome as RouteOutcome) : 'non-resource';
  return {
    seq: e.row,
    at: e.at,
    userAgent: e.client,
    method: METHOD_OF[e.verb] ?? 'GET',
    verb: e.verb,
    ...request,
    namespace: e.namespace,
    handling: e.server,
    answeredBy: e.answered,
    outcome,
    status: e.code ?? 0,
    latencyMs: e.latencyMs,
    bytesIn: 0,
    bytesOut: 0,
  };
}

function clusterEventOf(e: RecordedEvent & { row: number }, request: RecordedRequest): ClusterEvent {
  const outcome = (clusterOutcomes as readonly string[]).includes(e.outcome) ? (e.outcome as ClusterOutcome) : 'not-judged';
  return {
    seq: e.row,
    at: e.at,
    server: e.server ?? '',
    userAgent: e.client,
    user: e.user ?? '',
    verb: e.verb,
    ...request,
    namespace: e.namespace,
    outcome,
    code: e.code,
    latencyMs: Math.max(0, e.latencyMs),
    via: e.source === 'audit-webhook' ? 'audit-webhook' : 'audit-log',
  };
}
