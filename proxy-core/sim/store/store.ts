// The simulated cluster's etcd: one in-memory store shared by every simulated apiserver. Objects are
// kept per group+resource (never per version, as etcd keeps one storage version) under a global,
// increasing resourceVersion, with a bounded event history for watch-from-resourceVersion.
import { randomUUID } from 'node:crypto';
import { PeerscopeError } from '../../contract/errors.js';

/** A Kubernetes object as JSON. Stored objects are never mutated in place: writers store new ones. */
export type KubeObject = Record<string, unknown> & { metadata: ObjectMeta };

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

/** Where objects of one resource live, whatever version they are read through. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  readonly type: WatchEventType;
  readonly groupResource: string;
  readonly namespace: string;
  readonly name: string;
  /** The object after the change; for DELETED the last state, with the deletion's resourceVersion. */
  readonly object: KubeObject;
  readonly resourceVersion: number;
}

export type StoreErrorReason = 'NotFound' | 'AlreadyExists' | 'Conflict' | 'Expired';

export class StoreError extends PeerscopeError {
  override readonly name = 'StoreError';
  constructor(
    readonly reason: StoreErrorReason,
    message: string,
  ) {
    super('PEERSCOPE_ERR_SIM_STORE', message);
  }
}

export interface WatchFilter {
  /** Only this namespace; undefined = every namespace (and cluster-scoped objects). */
  readonly namespace?: string;
}

export interface StoreWatch {
  stop(): void;
}

export interface ObjectStoreOptions {
  /** How many events the store remembers for watches that start from an older resourceVersion. */
  readonly historyLimit?: number;
}

interface Watcher {
  readonly namespace: string | undefined;
  readonly listener: (event: StoreEvent) => void;
}

export function groupResourceKey(gr: GroupResource): string {
  return `${gr.group}/${gr.resource}`;
}

function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export class ObjectStore {
  private revision = 0;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly watchers = new Map<string, Set<Watcher>>();
  // A ring of the newest events; `evictedThrough` is the resourceVersion of the newest event that
  // fell out of it, so a watch from before it cannot be served (410 Expired).
  private readonly history: StoreEvent[] = [];
  private historyStart = 0;
  private evictedThrough = 0;
  private readonly historyLimit: number;

  constructor(options: ObjectStoreOptions = {}) {
    this.historyLimit = options.historyLimit ?? 10_000;
  }

  /** The newest resourceVersion handed out (list responses carry it). */
  currentResourceVersion(): number {
    return this.revision;
  }

  get(gr: GroupResource, namespace: string, name: string): KubeObject | undefined {
    return this.objects.get(groupResourceKey(gr))?.get(objectKey(namespace, name));
  }

  /** Objects of a resource, one namespace or all, ordered by namespace then name. */
  list(gr: GroupResource, namespace?: string): KubeObject[] {
    const bucket = this.objects.get(groupResourceKey(gr));
    if (!bucket) return [];
    const keys = [...bucket.keys()].sort();
    const out: KubeObject[] = [];
    for (const key of keys) {
      const obj = bucket.get(key) as KubeObject;
      if (namespace === undefined || (obj.metadata.namespace ?? '') === namespace) out.push(obj);
    }
    return out;
  }

  /** Stores a new object: sets uid, resourceVersion, creationTimestamp and generation. */
  /** Stores a new object; with `dryRun` only answers what would be stored (no resourceVersion, nothing kept). */
  create(gr: GroupResource, object: Record<string, unknown>, dryRun = false): KubeObject {
    const meta = { ...((object.metadata ?? {}) as Partial<ObjectMeta>) };
    const name = meta.name ?? '';
    const namespace = meta.namespace ?? '';
    const bucket = this.bucket(gr);
    const key = objectKey(namespace, name);
    if (bucket.has(key)) throw new StoreError('AlreadyExists', `${describe(gr, name)} already exists`);
    meta.uid = randomUUID();
    meta.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    meta.generation = 1;
    if (dryRun) {
      delete meta.resourceVersion;
      return { ...object, metadata: meta } as KubeObject;
    }
    const resourceVersion = ++this.revision;
    meta.resourceVersion = String(resourceVersion);
    const stored = { ...object, metadata: meta } as KubeObject;
    bucket.set(key, stored);
    this.emit({ type: 'ADDED', groupResource: groupResourceKey(gr), namespace, name, object: stored, resourceVersion });
    return stored;
  }

  /**
   * Replaces an existing object. With `expectedResourceVersion` the write fails with Conflict when the
   * stored object has moved on (optimistic concurrency, as a PUT carrying metadata.resourceVersion).
   */
  /** Replaces an object; with `dryRun` only answers what would be stored (the current resourceVersion, nothing kept). */
  update(gr: GroupResource, object: Record<string, unknown>, expectedResourceVersion?: string, dryRun = false): KubeObject {
    const meta = { ...((object.metadata ?? {}) as Partial<ObjectMeta>) };
    const name = meta.name ?? '';
    const namespace = meta.namespace ?? '';
    const bucket = this.bucket(gr);
    const key = objectKey(namespace, name);
    const current = bucket.get(key);
    if (!current) throw new StoreError('NotFound', `${describe(gr, name)} not found`);
    if (
      expectedResourceVersion !== undefined &&
      expectedResourceVersion !== '' &&
      expectedResourceVersion !== current.metadata.resourceVersion
    ) {
      throw new StoreError(
        'Conflict',
        `Operation cannot be fulfilled on ${describe(gr, name)}: the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    meta.uid = current.metadata.uid;
    meta.creationTimestamp = current.metadata.creationTimestamp;
    meta.generation = (current.metadata.generation ?? 1) + (specChanged(current, object) ? 1 : 0);
    if (dryRun) return { ...object, metadata: { ...meta, resourceVersion: current.metadata.resourceVersion } } as KubeObject;
    const resourceVersion = ++this.revision;
    meta.resourceVersion = String(resourceVersion);
    const stored = { ...object, metadata: meta } as KubeObject;
    bucket.set(key, stored);
    this.emit({ type: 'MODIFIED', groupResource: groupResourceKey(gr), namespace, name, object: stored, resourceVersion });
    return stored;
  }

  /** Removes an object and returns its last state. */
  delete(gr: GroupResource, namespace: string, name: string): KubeObject {
    const bucket = this.bucket(gr);
    const key = objectKey(namespace, name);
    const current = bucket.get(key);
    if (!current) throw new StoreError('NotFound', `${describe(gr, name)} not found`);
    bucket.delete(key);
    const resourceVersion = ++this.revision;
    const last = { ...current, metadata: { ...current.metadata, resourceVersion: String(resourceVersion) } } as KubeObject;
    this.emit({ type: 'DELETED', groupResource: groupResourceKey(gr), namespace, name, object: last, resourceVersion });
    return last;
  }

  /**
   * Calls `listener` for every change of the resource after `fromResourceVersion` (replaying the
   * history first), then live. Without a resourceVersion (or "0") the existing objects arrive first
   * as synthetic ADDED events, as kube-apiserver does. Throws StoreError Expired when the history
   * no longer reaches back to `fromResourceVersion`.
   */
  watch(
    gr: GroupResource,
    filter: WatchFilter,
    fromResourceVersion: number | undefined,
    listener: (event: StoreEvent) => void,
  ): StoreWatch {
    const grKey = groupResourceKey(gr);
    const matches = (e: StoreEvent) => e.groupResource === grKey && (filter.namespace === undefined || e.namespace === filter.namespace);
    if (fromResourceVersion === undefined || fromResourceVersion === 0) {
      for (const obj of this.list(gr, filter.namespace)) {
        listener({
          type: 'ADDED',
          groupResource: grKey,
          namespace: obj.metadata.namespace ?? '',
          name: obj.metadata.name,
          object: obj,
          resourceVersion: Number(obj.metadata.resourceVersion),
        });
      }
    } else {
      if (fromResourceVersion < this.evictedThrough) {
        throw new StoreError('Expired', `too old resource version: ${fromResourceVersion} (${this.evictedThrough + 1})`);
      }
      for (let i = this.historyStart; i < this.history.length; i++) {
        const e = this.history[i] as StoreEvent;
        if (e.resourceVersion > fromResourceVersion && matches(e)) listener(e);
      }
    }
    const watcher: Watcher = { namespace: filter.namespace, listener };
    let set = this.watchers.get(grKey);
    if (!set) this.watchers.set(grKey, (set = new Set()));
    set.add(watcher);
    return { stop: () => set.delete(watcher) };
  }

  private bucket(gr: GroupResource): Map<string, KubeObject> {
    const key = groupResourceKey(gr);
    let bucket = this.objects.get(key);
    if (!bucket) this.objects.set(key, (bucket = new Map()));
    return bucket;
  }

  private emit(event: StoreEvent): void {
    this.history.push(event);
    if (this.history.length - this.historyStart > this.historyLimit) {
      this.evictedThrough = (this.history[this.historyStart] as StoreEvent).resourceVersion;
      this.historyStart++;
      // Compact now and then instead of shifting on every event.
      if (this.historyStart >= this.historyLimit) {
        this.history.splice(0, this.historyStart);
        this.historyStart = 0;
      }
    }
    const set = this.watchers.get(event.groupResource);
    if (!set) return;
    for (const w of [...set]) {
      if (w.namespace !== undefined && w.namespace !== event.namespace) continue;
      try {
        w.listener(event);
      } catch {
        // A broken watcher must not stop the write or the other watchers.
        set.delete(w);
      }
    }
  }
}

/** `configmaps "x"` or `deployments.apps "x"`, as kube-apiserver names a resource in messages. */
export function describe(gr: GroupResource, name: string): string {
  return `${gr.group ? `${gr.resource}.${gr.group}` : gr.resource} "${name}"`;
}

function specChanged(before: Record<string, unknown>, after: Record<string, unknown>): boolean {
  return JSON.stringify(withoutMetaAndStatus(before)) !== JSON.stringify(withoutMetaAndStatus(after));
}

function withoutMetaAndStatus(obj: Record<string, unknown>): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}
