// A simulated apiserver's audit log, off by default: one audit.k8s.io/v1 Event a line for each request
// it answers, as kube-apiserver's log backend writes them at level Metadata under a policy that omits
// the RequestReceived and ResponseStarted stages (so a watch is logged once, when it ends). The auditID
// is the Audit-Id the server sends back. Upgrades (exec, attach, port-forward) are not logged.
// As a real server's, a request for an API it serves and marks deprecated (deprecations.ts) carries the
// annotations k8s.io/deprecated and k8s.io/removed-release, and the server's own requests show too: its
// loopback client (user system:apiserver, user agent kube-apiserver/<gitVersion>) renewing its identity
// lease every few seconds, from its own address — what Peerscope reads a server's release at each
// moment from (audit/timeline.ts) and matches a bare log file to its server by (audit/inputs.ts).
import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { ReleaseCatalog } from '../../engine/releases/index.js';
import type { SimUser } from './auth.js';
import { deprecationsOf } from './deprecations.js';
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

  /** Logs the request when its response has ended (or its connection closed first); `release` is what the server serves. */
  track(req: IncomingMessage, res: ServerResponse, user: SimUser | undefined, auditID: string, release: ReleaseCatalog): void {
    const received = microTime();
    res.once('close', () => {
      if (this.failure) return;
      this.out.write(JSON.stringify(eventOf(req, res.statusCode, user, auditID, received, release)) + '\n');
    });
  }

  /** Logs one of the server's own requests: its loopback client writing its identity lease. */
  ownLeaseWrite(write: OwnLeaseWrite): void {
    if (this.failure) return;
    const at = microTime();
    const path = `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${write.lease}`;
    const event = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: randomUUID(),
      stage: 'ResponseComplete',
      requestURI: write.verb === 'create' ? path.slice(0, path.lastIndexOf('/')) : path,
      verb: write.verb,
      user: { username: LOOPBACK_USER, uid: write.loopbackUid, groups: ['system:authenticated', 'system:masters'] },
      sourceIPs: [write.sourceIP],
      userAgent: `kube-apiserver/${write.gitVersion} (linux/amd64) kubernetes/${SIM_COMMIT}`,
      objectRef: {
        resource: 'leases',
        namespace: 'kube-system',
        name: write.lease,
        apiGroup: 'coordination.k8s.io',
        apiVersion: 'v1',
      },
      responseStatus: { metadata: {}, code: write.verb === 'create' ? 201 : 200 },
      requestReceivedTimestamp: at,
      stageTimestamp: at,
    };
    this.out.write(JSON.stringify(event) + '\n');
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.out.end(() => resolve()));
  }
}

/** The user kube-apiserver's loopback client authenticates as. */
const LOOPBACK_USER = 'system:apiserver';
/** The commit in the simulated servers' own user agent (client-go's form needs one). */
const SIM_COMMIT = '0000000';

export interface OwnLeaseWrite {
  /** create on the server's start, update on each renewal. */
  readonly verb: 'create' | 'update';
  readonly lease: string;
  readonly gitVersion: string;
  /** The server's own address: its loopback client connects from there. */
  readonly sourceIP: string;
  /** The loopback user's UID, new on each start as kube-apiserver's. */
  readonly loopbackUid: string;
}

function eventOf(
  req: IncomingMessage,
  code: number,
  user: SimUser | undefined,
  auditID: string,
  received: string,
  release: ReleaseCatalog,
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
  // Only APIs the release serves are in its deprecations: a 404 for an API it lacks is not marked, as kube-apiserver's.
  const removedRelease = resource
    ? deprecationsOf(release).get(`${resource.group ?? ''}/${resource.version}/${resource.resource}`)
    : undefined;
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
    ...(removedRelease !== undefined ? { annotations: { 'k8s.io/deprecated': 'true', 'k8s.io/removed-release': removedRelease } } : {}),
  };
}

/** A MicroTime as kube-apiserver writes it: six fraction digits. */
function microTime(): string {
  return new Date().toISOString().replace('Z', '000Z');
}
