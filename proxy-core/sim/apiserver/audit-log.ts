// A simulated apiserver's audit log, off by default: one audit.k8s.io/v1 Event a line for each request
// it answers, as kube-apiserver's log backend writes them at level Metadata under a policy that omits
// the RequestReceived and ResponseStarted stages (so a watch is logged once, when it ends). The auditID
// is the Audit-Id the server sends back. Upgrades (exec, attach, port-forward) are not logged.
import { createWriteStream, type WriteStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { SimUser } from './auth.js';
import { parseResourcePath } from './request-info.js';
import { verbOf } from './resources.js';

/** Where server `name` of a cluster started with `auditLogDir: dir` writes its audit log. */
export function simAuditLogFile(dir: string, name: string): string {
  return join(dir, `apiserver-${name}-audit.log`);
}

export class SimAuditLog {
  private readonly out: WriteStream;
  /** The first write error (disk full, folder removed): logging stops there, serving never does. */
  private failure: Error | undefined;

  constructor(readonly file: string) {
    this.out = createWriteStream(file, { flags: 'a' });
    this.out.on('error', (err) => (this.failure ??= err));
  }

  /** Logs the request when its response has ended (or its connection closed first). */
  track(req: IncomingMessage, res: ServerResponse, user: SimUser | undefined, auditID: string): void {
    const received = microTime();
    res.once('close', () => {
      if (this.failure) return;
      this.out.write(JSON.stringify(eventOf(req, res.statusCode, user, auditID, received)) + '\n');
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.out.end(() => resolve()));
  }
}

function eventOf(
  req: IncomingMessage,
  code: number,
  user: SimUser | undefined,
  auditID: string,
  received: string,
): Record<string, unknown> {
  const url = new URL(req.url ?? '/', 'http://sim');
  let segments: string[] = [];
  try {
    segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    // Not a path a client could mean: a non-resource request, as kube-apiserver would log it.
  }
  const resource = parseResourcePath(segments);
  const method = req.method ?? 'GET';
  const userAgent = req.headers['user-agent'];
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID,
    stage: 'ResponseComplete',
    requestURI: req.url ?? '/',
    verb: (resource && verbOf(method, resource, url.searchParams)) ?? method.toLowerCase(),
    user: user ? { username: user.name, groups: [...user.groups] } : { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    sourceIPs: req.socket.remoteAddress ? [req.socket.remoteAddress] : [],
    ...(userAgent ? { userAgent } : {}),
    ...(resource
      ? {
          objectRef: {
            resource: resource.resource,
            ...(resource.namespace !== undefined ? { namespace: resource.namespace } : {}),
            ...(resource.name !== undefined ? { name: resource.name } : {}),
            ...(resource.group ? { apiGroup: resource.group } : {}),
            apiVersion: resource.version,
            ...(resource.subresource !== undefined ? { subresource: resource.subresource } : {}),
          },
        }
      : {}),
    responseStatus: { metadata: {}, code },
    requestReceivedTimestamp: received,
    stageTimestamp: microTime(),
  };
}

/** A MicroTime as kube-apiserver writes it: six fraction digits. */
function microTime(): string {
  return new Date().toISOString().replace('Z', '000Z');
}
