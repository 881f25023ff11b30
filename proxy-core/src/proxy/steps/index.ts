// The request path of the local port as ordered lists of named steps (httpxy's passes). Plain requests
// and upgrades share admission (ADMISSION_STEPS: once, before anything answers) and routing.
import { hostCheck, originCheck, requestFilter, stripIdentity } from './admit.js';
import { controlEndpoints } from './control.js';
import { forwardOrServe } from './forward.js';
import { absoluteTarget, classify, decode, requestHead, upgradeTarget } from './read.js';
import { pickHandling, settle } from './route.js';
import type { Step } from './step.js';
import { tunnelUpgrade } from './tunnel.js';

/**
 * Admission: every request, plain, upgrade or to the port's own endpoints, once. Classified first, so
 * that a refused request is recorded with what it asked for.
 */
const ADMISSION_STEPS: readonly Step[] = [classify, hostCheck, originCheck, requestFilter, stripIdentity];

/** Routing: the handling server a load balancer would pick, then the settled decision. */
const ROUTING_STEPS: readonly Step[] = [pickHandling, settle];

/** A plain request: read and decode it, admit it, serve the port's own endpoints, route, forward. */
export const REQUEST_STEPS: readonly Step[] = [
  absoluteTarget,
  requestHead,
  decode,
  ...ADMISSION_STEPS,
  controlEndpoints,
  ...ROUTING_STEPS,
  forwardOrServe,
];

/** An upgrade (exec, attach, port-forward): the same admission and routing, then a tunnel. */
export const UPGRADE_STEPS: readonly Step[] = [upgradeTarget, requestHead, ...ADMISSION_STEPS, ...ROUTING_STEPS, tunnelUpgrade];

export { ANSWERED, runSteps, type Step, type StepResult } from './step.js';
