// A step of the request path: a name and one job. A step lets the request go on (undefined), refuses
// it with a Status the handler writes, or answers it itself (ANSWERED). Only a step that must wait
// returns a promise, so a request that needs no wait runs its steps without allocating one.
import type { Status } from '../../util/status.js';
import type { ProxyContext } from '../context.js';
import type { Exchange } from '../exchange.js';

/** The step answered the request itself; nothing further runs. */
export const ANSWERED = 'answered';

export type StepResult = undefined | Status | typeof ANSWERED;

export interface Step {
  readonly name: string;
  run(x: Exchange, ctx: ProxyContext): StepResult | Promise<StepResult>;
}

/** Runs `steps` in order from `from` until one refuses or answers; synchronous until a step waits. */
export function runSteps(steps: readonly Step[], x: Exchange, ctx: ProxyContext, from = 0): StepResult | Promise<StepResult> {
  for (let i = from; i < steps.length; i++) {
    const result = (steps[i] as Step).run(x, ctx);
    if (result === undefined) continue;
    // The last step's promise is the answer itself: no second promise to wrap it (the forward's case).
    if (result instanceof Promise)
      return i === steps.length - 1 ? result : result.then((r: StepResult) => (r === undefined ? runSteps(steps, x, ctx, i + 1) : r));
    return result;
  }
  return undefined;
}
