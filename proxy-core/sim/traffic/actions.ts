// The short requests of the generator: kubectl-like list / create / get / delete with unique names,
// the namespace controller's sweep over every namespaced GVR (the workflow a false 404 breaks), and
// the dispatcher that sends them at the bucket's rate with a bound on those in flight.
import type { Gvr } from './gvrs.js';
import { isWritable, objectFor } from './objects.js';
import type { TrafficRun } from './run.js';
import { metadataOf } from './wire.js';

export function startDispatch(
  run: TrafficRun,
  gvrs: readonly Gvr[],
  maxInFlight: number,
  track: (p: Promise<unknown>) => void,
): Promise<void> {
  return dispatch(run, shortRequests(run, gvrs), maxInFlight, track);
}

/** What the dispatcher draws from: the next request to send, and the namespace the writes need first. */
interface ShortRequests {
  ensureNamespace(): Promise<void>;
  choose(): () => Promise<void>;
}

/** The short requests over `gvrs`, each recording what it wrote (or may have written) in the run's summary. */
function shortRequests(run: TrafficRun, gvrs: readonly Gvr[]): ShortRequests {
  const { summary, ns } = run;
  const listable = gvrs.filter((g) => g.verbs.has('list'));
  const namespacedListable = listable.filter((g) => g.namespaced);
  const writable = gvrs.filter((g) => isWritable(g.key) && g.verbs.has('create') && g.verbs.has('delete'));
  const created: { gvr: Gvr; name: string }[] = [];
  let serial = 0;
  let sweeping = false;

  async function list(): Promise<void> {
    const g = run.pick(listable);
    await run.send('list', g, 'GET', run.collection(g), undefined, true);
  }

  async function create(): Promise<void> {
    const g = run.pick(writable);
    const n = ++serial;
    const name = `traffic-${run.runId}-${n}`;
    const res = await run.send('create', g, 'POST', run.collection(g), objectFor(g, name, ns, n), true);
    if (!res) return;
    if (res.status === 0 || res.status >= 500) summary.uncertain.push(name);
    if (res.status === 201 || res.status === 200) {
      const meta = (res.json?.metadata ?? {}) as { uid?: string; resourceVersion?: string };
      created.push({ gvr: g, name });
      summary.writes.push({
        op: 'create',
        gvr: g.key,
        namespace: g.namespaced ? ns : '',
        name,
        ...(meta.uid ? { uid: meta.uid } : {}),
        ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
      });
    }
  }

  async function get(): Promise<void> {
    const { gvr: g, name } = run.pick(created);
    await run.send('get', g, 'GET', `${run.collection(g)}/${name}`, undefined, true);
  }

  async function remove(): Promise<void> {
    const [victim] = created.splice(Math.floor(run.random() * created.length), 1) as [{ gvr: Gvr; name: string }];
    const res = await run.send('delete', victim.gvr, 'DELETE', `${run.collection(victim.gvr)}/${victim.name}`, undefined, true);
    if (!res) return;
    if (res.status === 200 || res.status === 202)
      summary.writes.push({ op: 'delete', gvr: victim.gvr.key, namespace: victim.gvr.namespaced ? ns : '', name: victim.name });
    else if (res.status === 0 || res.status >= 500) summary.uncertain.push(victim.name);
  }

  /** The namespace controller's sweep: every namespaced GVR that can be listed, one after another. */
  async function sweep(): Promise<void> {
    sweeping = true;
    try {
      let paid = true;
      for (const g of namespacedListable) {
        if (run.stopping) return;
        if (!(await run.send('ns-sweep', g, 'GET', run.collection(g), undefined, paid))) return;
        paid = false;
      }
    } finally {
      sweeping = false;
    }
  }

  function chooseAction(): () => Promise<void> {
    const r = run.random();
    if (r < 0.45 || writable.length === 0) return list;
    if (r < 0.65) return create;
    if (r < 0.82 && created.length > 0) return get;
    if (r < 0.97 && created.length > 0) return remove;
    // One sweep at a time, as the namespace controller works one namespace after another.
    if (r >= 0.97 && !sweeping) return sweep;
    return list;
  }

  // The namespace the writes go to, as an operator's kubectl would create it first; 409 is fine.
  const namespaces = gvrs.find((g) => g.key === '/v1/namespaces');
  async function ensureNamespace(): Promise<void> {
    if (!namespaces) return;
    const res = await run.send('create', namespaces, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    });
    if (res?.status === 201) summary.writes.push({ op: 'create', gvr: namespaces.key, namespace: '', name: ns, ...metadataOf(res.json) });
  }

  return { ensureNamespace, choose: chooseAction };
}

/** Sends the requests at the bucket's rate, at most `maxInFlight` at once, until the run stops. */
async function dispatch(
  run: TrafficRun,
  requests: ShortRequests,
  maxInFlight: number,
  track: (p: Promise<unknown>) => void,
): Promise<void> {
  await requests.ensureNamespace();
  let inFlight = 0;
  let slotFreed: (() => void) | undefined;
  while (!run.stopping) {
    if (inFlight >= maxInFlight) {
      await new Promise<void>((resolve) => (slotFreed = resolve));
      continue;
    }
    if (!(await run.bucket.take())) break;
    const action = requests.choose();
    inFlight++;
    track(
      action().finally(() => {
        inFlight--;
        slotFreed?.();
        slotFreed = undefined;
      }),
    );
  }
}
