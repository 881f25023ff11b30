// A step of the request path: a name and one job. A step lets the request go on (undefined), refuses
// it with a Status the handler writes, answers it itself (ANSWERED), or, the forward only, asks for
// the load balancer's one retry (RETRY). Only a step that must wait returns a promise, so a request
// that needs no wait runs its steps without allocating one. The handler runs them (handler.ts, runSteps).
// What one step learns and a later one reads (the decoded path, the class, the handling server, the
// decision) is in the types: a step names the fields it needs and those it fills, and stepList checks
// a list's order when it is compiled, so no step casts what an earlier one left on the exchange.
import type { RouteOutcome } from '../../../contract/events.js';
import type { RequestInfo } from '../../routing/request-info.js';
import type { Status } from '../../util/status.js';
import type { ProxyContext } from '../context.js';
import type { Exchange, Routed } from '../exchange.js';

/** The step answered the request itself; nothing further runs. */
export const ANSWERED = 'answered';

/**
 * The forward's handling server refused the connection and the load balancer would try another
 * (policy.ts, mayRetryElsewhere): the handler runs routing and forwarding once more.
 */
export const RETRY = 'retry';

export type StepResult = undefined | Status | typeof ANSWERED | typeof RETRY;

/**
 * When a step applies, said as data the runner checks (handler.ts, runSteps): a step for one kind of
 * request names it here, so the step list reads as the path a request takes and a request of another
 * kind never enters the step's code.
 */
export type StepGuard =
  /** The request's path (as sent) starts with this. */
  | { readonly pathPrefix: string }
  /** The settled decision's outcome is this. */
  | { readonly decision: RouteOutcome };

/** What the steps fill in on the exchange, each from one step on. */
export interface Filled {
  /** decode-path, upgrade-target */
  decoded: string;
  /** classify */
  info: RequestInfo;
  /** pick-handling-server */
  handling: string;
  /** settle-decision */
  decision: Routed;
}

export type Field = keyof Filled;

/** The exchange `X` with the fields `F` filled in. */
export type With<X extends Exchange, F extends Field> = X & Pick<Filled, F>;

/**
 * A step that reads the fields `Needs` (an earlier step filled them), fills `Fills` when it lets the
 * request go on, and runs on exchanges of kind `X` (any, a plain request's, an upgrade's).
 */
export interface Step<Needs extends Field = never, Fills extends Field = never, X extends Exchange = Exchange> {
  readonly name: string;
  readonly needs?: readonly Needs[];
  readonly fills?: readonly Fills[];
  /** Runs only for the requests this says; absent, for every request. */
  readonly only?: StepGuard;
  // A property, not a method: its parameter is then checked contravariantly.
  readonly run: (x: With<X, Needs>, ctx: ProxyContext) => StepResult | Promise<StepResult>;
}

/** A step of a checked list (stepList), as runSteps runs it. */
export interface ListedStep<X extends Exchange> {
  readonly name: string;
  readonly only?: StepGuard;
  readonly run: (x: X, ctx: ProxyContext) => StepResult | Promise<StepResult>;
}

/** The first step of `Steps` whose needs the steps before it (and `Have`) do not fill; never when none. */
type Unmet<Steps extends readonly unknown[], Have extends Field> = Steps extends readonly [infer S, ...infer Rest]
  ? S extends { readonly needs?: readonly (infer N extends Field)[]; readonly fills?: readonly (infer F extends Field)[] }
    ? [Exclude<N, Have>] extends [never]
      ? Unmet<Rest, Have | F>
      : { readonly unmet: Exclude<N, Have>; readonly step: S }
    : never
  : never;

/**
 * The steps in order, for exchanges of kind `X` that arrive with `Have` filled. When a step needs a
 * field no step before it fills, the result is the `Unmet` description instead of a list, and the
 * compiler refuses the list where it is declared.
 */
export function stepList<X extends Exchange, Have extends Field = never>() {
  return <S extends readonly Step<Field, Field, X>[]>(
    ...steps: S
  ): [Unmet<S, Have>] extends [never] ? readonly ListedStep<With<X, Have>>[] : Unmet<S, Have> =>
    // The one place the order is taken on trust from the type check above.
    steps as never;
}
