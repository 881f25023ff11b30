import { describe, expect, it } from 'vitest';
import { parseFieldSelector, parseLabelSelector, SelectorError } from './selectors.js';
import { ObjectStore, StoreError, type KubeObject, type StoreEvent } from './store.js';

const CM = { group: '', resource: 'configmaps' };

function configMap(name: string, namespace = 'default', labels?: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...(labels ? { labels } : {}) }, data: { k: name } };
}

describe('ObjectStore', () => {
  it('creates with uid, increasing resourceVersion, creationTimestamp and generation 1; refuses duplicates', () => {
    const store = new ObjectStore();
    const a = store.create(CM, configMap('a'));
    const b = store.create(CM, configMap('b'));
    expect(a.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.metadata.generation).toBe(1);
    expect(a.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Number(b.metadata.resourceVersion)).toBeGreaterThan(Number(a.metadata.resourceVersion));
    expect(() => store.create(CM, configMap('a'))).toThrow(new StoreError('AlreadyExists', 'configmaps "a" already exists'));
  });

  it('updates with optimistic concurrency and bumps generation only when more than metadata/status changed', () => {
    const store = new ObjectStore();
    const a = store.create(CM, configMap('a'));
    const statusOnly = store.update(CM, { ...a, status: { x: 1 } }, a.metadata.resourceVersion);
    expect(statusOnly.metadata.generation).toBe(1);
    expect(statusOnly.metadata.uid).toBe(a.metadata.uid);
    const changed = store.update(CM, { ...statusOnly, data: { k: 'new' } });
    expect(changed.metadata.generation).toBe(2);
    expect(() => store.update(CM, { ...a }, a.metadata.resourceVersion)).toThrowError(
      /Operation cannot be fulfilled on configmaps "a": the object has been modified/,
    );
    expect(() => store.update({ group: 'apps', resource: 'deployments' }, configMap('zz'))).toThrowError('deployments.apps "zz" not found');
  });

  it('keeps one copy per group+resource, lists by namespace in name order, deletes', () => {
    const store = new ObjectStore();
    store.create(CM, configMap('b', 'ns1'));
    store.create(CM, configMap('a', 'ns2'));
    store.create(CM, configMap('a', 'ns1'));
    expect(store.list(CM).map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['ns1/a', 'ns1/b', 'ns2/a']);
    expect(store.list(CM, 'ns2')).toHaveLength(1);
    const deleted = store.delete(CM, 'ns1', 'a');
    expect(deleted.metadata.name).toBe('a');
    expect(store.get(CM, 'ns1', 'a')).toBeUndefined();
    expect(() => store.delete(CM, 'ns1', 'a')).toThrowError('configmaps "a" not found');
  });

  it('watches: replays history after a resourceVersion, then live, filtered by resource and namespace', () => {
    const store = new ObjectStore();
    const a = store.create(CM, configMap('a'));
    store.create({ group: '', resource: 'secrets' }, configMap('s'));
    store.update(CM, { ...a, data: { k: 'v2' } });
    const seen: StoreEvent[] = [];
    const w = store.watch(CM, { namespace: 'default' }, Number(a.metadata.resourceVersion), (e) => seen.push(e));
    store.create(CM, configMap('other', 'elsewhere'));
    store.delete(CM, 'default', 'a');
    w.stop();
    store.create(CM, configMap('after-stop'));
    expect(seen.map((e) => `${e.type} ${e.name}`)).toEqual(['MODIFIED a', 'DELETED a']);
  });

  it('watch without a resourceVersion starts with synthetic ADDED events of the current objects', () => {
    const store = new ObjectStore();
    store.create(CM, configMap('a'));
    const seen: string[] = [];
    store.watch(CM, {}, undefined, (e) => seen.push(`${e.type} ${e.name}`)).stop();
    expect(seen).toEqual(['ADDED a']);
  });

  it('a resourceVersion older than the bounded history is Expired; 10,000 events stay cheap', () => {
    const store = new ObjectStore({ historyLimit: 10_000 });
    const first = store.create(CM, configMap('x'));
    let obj: KubeObject = first;
    const started = Date.now();
    for (let i = 0; i < 10_500; i++) obj = store.update(CM, { ...obj, data: { i: String(i) } });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(() => store.watch(CM, {}, Number(first.metadata.resourceVersion), () => {})).toThrowError(StoreError);
    let count = 0;
    store.watch(CM, {}, store.currentResourceVersion() - 10_000, () => count++).stop();
    expect(count).toBe(10_000);
  });
});

describe('selectors', () => {
  const obj = (labels: Record<string, string>) =>
    ({ metadata: { name: 'n', namespace: 'ns', uid: '', resourceVersion: '1', creationTimestamp: '', labels } }) as KubeObject;
  it('label selectors: =, ==, !=, in, notin, exists, !exists', () => {
    const o = obj({ app: 'web', tier: 'front' });
    expect(parseLabelSelector('app=web')(o)).toBe(true);
    expect(parseLabelSelector('app==web,tier=front')(o)).toBe(true);
    expect(parseLabelSelector('app!=web')(o)).toBe(false);
    expect(parseLabelSelector('app in (db, web)')(o)).toBe(true);
    expect(parseLabelSelector('app notin (db,web)')(o)).toBe(false);
    expect(parseLabelSelector('tier,!missing')(o)).toBe(true);
    expect(parseLabelSelector('!tier')(o)).toBe(false);
    expect(() => parseLabelSelector('app in (a')).toThrow(SelectorError);
  });
  it('field selectors on metadata.name and metadata.namespace only', () => {
    const o = obj({});
    expect(parseFieldSelector('metadata.name=n,metadata.namespace!=other')(o)).toBe(true);
    expect(parseFieldSelector('metadata.namespace==x')(o)).toBe(false);
    expect(() => parseFieldSelector('status.phase=Running')).toThrowError('field label not supported: status.phase');
  });
  it("field selectors on the labels a resource adds: an event's involvedObject, a pod's node and phase", () => {
    const event = { ...obj({}), involvedObject: { kind: 'ConfigMap', name: 'c', uid: 'u-1' }, type: 'Normal' };
    expect(parseFieldSelector('involvedObject.kind=ConfigMap,involvedObject.name=c,involvedObject.uid=u-1', '/events')(event)).toBe(true);
    expect(parseFieldSelector('involvedObject.name=d', '/events')(event)).toBe(false);
    expect(parseFieldSelector('type!=Warning', '/events')(event)).toBe(true);
    const pod = { ...obj({}), spec: { nodeName: 'node-1' }, status: { phase: 'Running' } };
    expect(parseFieldSelector('spec.nodeName=node-1,status.phase!=Failed', '/pods')(pod)).toBe(true);
    expect(() => parseFieldSelector('involvedObject.name=c', '/pods')).toThrowError('field label not supported: involvedObject.name');
  });
});
