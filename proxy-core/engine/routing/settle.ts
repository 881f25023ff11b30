// The settled decision: decide() plus the second looks a request may need before it is answered.
// - A handling server that just came back may run another release: wait (at most REREAD_WAIT_MS) for
//   its discovery to be read again, then decide on the new document.
// - A reroute to a peer whose discovery is being read again goes to another candidate whose document
//   is not in doubt; with none, it waits for the re-read the same way and decides once more (a
//   rollout back to an older release: the old document may list a GVR it no longer serves).
// - No false 404 and no needless 503: before a `notfound` or an R10 `unavailable`, the servers out of
//   service are looked at again (ServerSet.recheckOutOfService); if the route table changed, decide again.
// Synchronous unless one of these waits applies, so the common request allocates no promise here.
import { decide, pickUniform, type Decision, type DecisionInput, type ServerView } from './decide.js';
import type { RouteTable } from './route-table.js';

/** The longest a request waits for a returning server's discovery to be read again. */
export const REREAD_WAIT_MS = 2_000;

/** What settling needs of the server list; the server set implements it. */
export interface ServerWaits {
  /** Resolves when a returning server's discovery has been read again; undefined when none is pending. */
  rereadPending(name: string): Promise<void> | undefined;
  /** Looks again at the servers out of service, no earlier than `since` (performance.now()). */
  recheckOutOfService(since: number): Promise<void>;
}

/** The current route table and its generation (bumped whenever the table is rebuilt); the port's route state. */
export interface CurrentRoutes {
  readonly table: RouteTable;
  readonly generation: number;
}

/** A request to settle: what decide() reads of it, the server list and the routes, each once. */
export interface SettleInput extends Omit<DecisionInput, 'table' | 'peers'> {
  readonly servers: ServerView & ServerWaits;
  readonly routes: CurrentRoutes;
  /** When the request arrived (performance.now()): a recheck need not be newer. */
  readonly since: number;
}

/**
 * The decision for a request, after every wait it needs; decides once in the common case, at most
 * three times (after a peer's re-read, after a recheck that changed the table).
 */
export function settleDecision(s: SettleInput): Decision | Promise<Decision> {
  const reread = s.servers.rereadPending(s.handling);
  // The common request: nothing to wait for, and a decision that needs no second look.
  if (!reread) {
    const decision = decideOn(s);
    const peerReread = decision.outcome === 'rerouted' ? s.servers.rereadPending(decision.target) : undefined;
    if (!peerReread && !needsRecheck(decision)) return decision;
    return checkPeerThenRecheck(decision, s);
  }
  return waitAtMost(reread).then(() => checkPeerThenRecheck(decideOn(s), s));
}

function checkPeerThenRecheck(decision: Decision, s: SettleInput): Decision | Promise<Decision> {
  if (decision.outcome === 'rerouted') {
    const peerReread = s.servers.rereadPending(decision.target);
    if (peerReread) {
      return settledPeer(decision, s) ?? waitAtMost(peerReread).then(() => recheckBeforeRefusing(decideOn(s), s));
    }
  }
  return recheckBeforeRefusing(decision, s);
}

type Rerouted = Extract<Decision, { outcome: 'rerouted' }>;

/**
 * The same reroute to another candidate whose discovery is not being read again, picked uniformly
 * (R8) among them; undefined when every other candidate is being re-read too. No wait, and no trust
 * in a document that may be a release old.
 */
function settledPeer(decision: Rerouted, s: SettleInput): Rerouted | undefined {
  const settled = decision.candidates.filter((name) => name !== decision.target && !s.servers.rereadPending(name));
  if (settled.length === 0) return undefined;
  const target = pickUniform(settled, s.random ?? Math.random);
  return { outcome: 'rerouted', target, candidates: decision.candidates, headers: decision.headers };
}

function recheckBeforeRefusing(decision: Decision, s: SettleInput): Decision | Promise<Decision> {
  if (!needsRecheck(decision)) return decision;
  const generation = s.routes.generation;
  return s.servers.recheckOutOfService(s.since).then(() => (s.routes.generation !== generation ? decideOn(s) : decision));
}

/** A 404, or an R10 503 (a peer that could serve it is out of service): worth a second look. */
function needsRecheck(decision: Decision): boolean {
  return decision.outcome === 'notfound' || (decision.outcome === 'unavailable' && decision.reason === 'unreachable');
}

/** Decides on the route table as it is now (it may have been rebuilt while the request waited). */
function decideOn(s: SettleInput): Decision {
  // One literal of a fixed shape (a spread would take V8's slow object-clone path).
  return decide({
    info: s.info,
    handling: s.handling,
    table: s.routes.table,
    peers: s.servers,
    peerProxiedHeader: s.peerProxiedHeader,
    accept: s.accept,
    discoveryMode: s.discoveryMode,
    faithful: s.faithful,
    random: s.random,
  });
}

function waitAtMost(pending: Promise<void>): Promise<unknown> {
  return Promise.race([pending, new Promise((resolve) => setTimeout(resolve, REREAD_WAIT_MS))]);
}
