// The request path of the local port as ordered lists of named steps (httpxy's passes). Plain requests
// and upgrades share admission (once, before anything answers) and routing. stepList checks, when it
// is compiled, that each step's needs are filled by a step before it (step.ts).
import type { RequestExchange, UpgradeExchange } from '../exchange.js';
import { hostCheck, originCheck, requestFilter, stripIdentity } from './admit.js';
import { controlEndpoints } from './control.js';
import { forwardOrServe } from './forward.js';
import { absoluteTarget, classify, decode, requestHead, upgradeTarget } from './read.js';
import { pickHandling, settle } from './route.js';
import { stepList, type ListedStep } from './step.js';
import { tunnelUpgrade } from './tunnel.js';

/**
 * Admission: every request, plain, upgrade or to the port's own endpoints, once. Classified first, so
 * that a refused request is recorded with what it asked for.
 */
const ADMISSION = [classify, hostCheck, originCheck, requestFilter, stripIdentity] as const;

/** Routing: the handling server a load balancer would pick, then the settled decision. */
const ROUTING = [pickHandling, settle] as const;

/** A plain request: read and decode it, admit it, serve the port's own endpoints, route, forward. */
export const REQUEST_STEPS: readonly ListedStep<RequestExchange>[] = stepList<RequestExchange>()(
  absoluteTarget,
  requestHead,
  decode,
  ...ADMISSION,
  controlEndpoints,
  ...ROUTING,
  forwardOrServe,
);

/** An upgrade (exec, attach, port-forward): the same admission and routing, then a tunnel. */
export const UPGRADE_STEPS: readonly ListedStep<UpgradeExchange>[] = stepList<UpgradeExchange>()(
  upgradeTarget,
  requestHead,
  ...ADMISSION,
  ...ROUTING,
  tunnelUpgrade,
);

export { ANSWERED, runSteps, type ListedStep, type Step, type StepResult } from './step.js';
