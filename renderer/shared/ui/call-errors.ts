// What a person can do about a failed call, chosen by the error's code (contract/errors.ts), never by
// matching its text: the core's message says what went wrong, this says what to try.
import { isPeerscopeError, type PeerscopeErrorCode } from '../../../proxy-core/contract/index.js';

export function errorCode(error: unknown): PeerscopeErrorCode | undefined {
  return isPeerscopeError(error) ? error.code : undefined;
}

/** The message of any thrown value. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The call never got an answer from the core (as opposed to the core answering no). */
export function isTransportFailure(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'PEERSCOPE_ERR_TRANSPORT' || code === 'PEERSCOPE_ERR_BAD_ANSWER' || code === 'PEERSCOPE_ERR_REFUSED';
}

const ADVICE: Partial<Record<PeerscopeErrorCode, string>> = {
  PEERSCOPE_ERR_TRANSPORT: 'Peerscope’s core did not answer: check that it is still running, then try again.',
  PEERSCOPE_ERR_REFUSED: 'The core refused this page: open the link Peerscope printed again.',
  PEERSCOPE_ERR_BAD_ANSWER: 'This page and the core are different versions: reload the page.',
  PEERSCOPE_ERR_INTERNAL: 'This is a fault in Peerscope; the core’s log has the details.',
  PEERSCOPE_ERR_NO_CLUSTER: 'Open a kubeconfig or start the simulated cluster from the menu.',
};

/** One sentence of what to try next, when the code calls for one. */
export function adviceFor(error: unknown): string | undefined {
  const code = errorCode(error);
  return code ? ADVICE[code] : undefined;
}
