// Why a server cannot be reached, in the words an operator knows from kubectl (Go's own error texts:
// "connection refused", "certificate signed by unknown authority"…), sorted into a few causes so that
// servers out of reach for the same reason are told in one line. Managed clusters and private subnets
// advertise addresses (identity leases, default/kubernetes endpoints) an operator's machine cannot
// reach: the cause says whether it is the network (timeout, refused, no route) or the certificate.
import type { UnreachableCause } from '../../contract/servers.js';
// The one-line-per-cause summary lives in the contract: the UI says the same lines as the CLI.
export { reachabilityLines, type ReachabilityFacts } from '../../contract/reachability.js';
import { describeError } from './server-reader.js';

export type { UnreachableCause };

/** Node's (and undici's) codes for each cause; the first cause whose pattern matches wins. */
const CAUSES: readonly { cause: UnreachableCause; words: string; pattern: RegExp }[] = [
  {
    cause: 'tls-unknown-authority',
    words: 'certificate signed by unknown authority',
    pattern:
      /\b(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_SIGNATURE_FAILURE|CERT_UNTRUSTED|CERT_REJECTED)\b/,
  },
  {
    cause: 'tls-name-mismatch',
    words: 'certificate name mismatch (the certificate does not name the address)',
    pattern: /\bERR_TLS_CERT_ALTNAME_INVALID\b|does not match certificate's altnames/,
  },
  { cause: 'tls-expired', words: 'certificate expired or not yet valid', pattern: /\b(CERT_HAS_EXPIRED|CERT_NOT_YET_VALID)\b/ },
  {
    cause: 'timeout',
    words: 'timeout (nothing answers: a firewall drops the packets, or the address is not routed from here)',
    pattern: /\b(UND_ERR_CONNECT_TIMEOUT|ETIMEDOUT|TimeoutError)\b|no connection to \S+ within|Connect Timeout|aborted due to timeout/,
  },
  { cause: 'refused', words: 'connection refused (nothing listens there)', pattern: /\bECONNREFUSED\b/ },
  { cause: 'no-route', words: 'no route to host', pattern: /\b(EHOSTUNREACH|ENETUNREACH|EHOSTDOWN)\b/ },
  { cause: 'dns', words: 'host name not found', pattern: /\b(ENOTFOUND|EAI_AGAIN)\b/ },
  {
    cause: 'reset',
    words: 'connection reset',
    pattern: /\b(ECONNRESET|EPIPE|UND_ERR_SOCKET)\b|socket hang up|other side closed|Client network socket disconnected/,
  },
];

export interface Unreachable {
  readonly cause: UnreachableCause;
  /** The cause in a few words, as kubectl would say it. */
  readonly words: string;
  /** The words, then the error as the connection reported it. */
  readonly message: string;
}

/** Every code and message along an error's cause chain, for matching. */
function errorText(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    if (typeof e === 'string') {
      parts.push(e);
      break;
    }
    if (e instanceof Error) {
      const code = (e as NodeJS.ErrnoException).code;
      parts.push(e.name, code ?? '', e.message);
      e = (e as Error & { cause?: unknown }).cause;
    } else {
      parts.push(String(e));
      break;
    }
  }
  return parts.join(' ');
}

/** Sorts a failed connection or read by its cause: an Error (with its cause chain) or an error message already written down. */
export function classifyUnreachable(err: unknown): Unreachable {
  const text = errorText(err);
  const detail = typeof err === 'string' ? err : describeError(err);
  const found = CAUSES.find((c) => c.pattern.test(text));
  if (!found) return { cause: 'other', words: 'error', message: detail };
  // A message classified before (a forward's error passed on) is not prefixed twice.
  return { cause: found.cause, words: found.words, message: detail.startsWith(found.words) ? detail : `${found.words}: ${detail}` };
}
