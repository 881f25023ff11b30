// The request path of the local port as ordered lists of named steps (httpxy's passes), shared by
// plain requests and upgrades from `classify` to `settle-decision` (ROUTING_STEPS).
import { hostCheck, originCheck, requestFilter, stripIdentity } from './admit.js';
import { controlEndpoints } from './control.js';
import { forwardOrServe } from './forward.js';
import { absoluteTarget, classify, decode, requestHead, upgradeTarget } from './read.js';
import { pickHandling, settle } from './route.js';
import type { Step } from './step.js';
import { tunnelUpgrade } from './tunnel.js';

/** Admission and routing: every routed request, plain or upgrade, goes through these in order. */
export const ROUTING_STEPS: readonly Step[] = [classify, hostCheck, originCheck, requestFilter, stripIdentity, pickHandling, settle];

/** A plain request: read it, serve the port's own endpoints, decode, admit, route, forward. */
export const REQUEST_STEPS: readonly Step[] = [absoluteTarget, requestHead, controlEndpoints, decode, ...ROUTING_STEPS, forwardOrServe];

/** An upgrade (exec, attach, port-forward): the same admission and routing, then a tunnel. */
export const UPGRADE_STEPS: readonly Step[] = [upgradeTarget, requestHead, ...ROUTING_STEPS, tunnelUpgrade];

export { ANSWERED, runSteps, type Step, type StepResult } from './step.js';
