// One error shape for everything Peerscope refuses or fails at, as undici gives each failure one
// `UND_ERR_*` code: a PeerscopeError carries a stable `code` a caller (the UI, a test, a script) may
// branch on, and a message written for the person reading it. Messages are Peerscope's own text: they
// name files, fields, servers and causes, never a credential. The wire carries `{ code, message }` only.
import { z } from 'zod';

/** Every code, with what it means. A new failure is one row here and one `throw new PeerscopeError`. */
export const errorCodes = {
  // Calls between the UI and the core (contract/rpc.ts, the UI server, Electron's IPC).
  PEERSCOPE_ERR_NO_METHOD: 'the contract has no method of that name',
  PEERSCOPE_ERR_INVALID_ARGUMENTS: "a call's argument object does not match the contract",
  PEERSCOPE_ERR_BAD_ANSWER: "the core's answer does not match the contract (a newer or older core)",
  PEERSCOPE_ERR_BODY_TOO_LARGE: 'a call to the UI server sent a body over its limit',
  PEERSCOPE_ERR_BODY_NOT_JSON: 'a call to the UI server sent a body that is not JSON',
  PEERSCOPE_ERR_REFUSED: 'the host refused the caller (a frame or origin that is not the app, no token)',
  PEERSCOPE_ERR_TRANSPORT: 'the call did not reach the core or its answer did not come back',
  PEERSCOPE_ERR_INTERNAL: 'an unexpected failure inside the core; its log has the details',
  // Settings and the simulated control plane.
  PEERSCOPE_ERR_POLICY: 'a handling policy that is not round-robin, random or pin:NAME of a known server',
  PEERSCOPE_ERR_NO_CLUSTER: 'no cluster is open in the desktop app: neither the simulated one nor a kubeconfig',
  PEERSCOPE_ERR_NO_SIMULATOR: 'a call for the simulated control plane on a core that runs on a real cluster',
  PEERSCOPE_ERR_NO_TRAFFIC: 'a traffic rate set on a core without a traffic generator',
  PEERSCOPE_ERR_ROLLOUT: 'the simulated rollout was aborted or cannot do what was asked',
  PEERSCOPE_ERR_OFFLINE: 'a snapshot viewed offline cannot do what needs a live cluster',
  PEERSCOPE_ERR_NO_RECORDING: 'a call for the recording of a session that records nothing',
  PEERSCOPE_ERR_READ_ONLY: 'a recording opened from a file is read-only: nothing in it can be changed',
  PEERSCOPE_ERR_NO_LIBRARY: 'a call for the recordings folder on a host that keeps none (only the app and `demo --ui` do)',
  // Input files and command-line input.
  PEERSCOPE_ERR_INPUT: 'a file or argument is malformed; the message names the file and the field or line',
  PEERSCOPE_ERR_KUBECONFIG: 'the kubeconfig cannot be used: no such context, cluster or user, or a form Peerscope does not support',
  PEERSCOPE_ERR_CREDENTIALS: 'a credential named by the kubeconfig or the command line cannot be read',
  PEERSCOPE_ERR_PROXY_CONFIG: 'the HTTPS proxy settings (kubeconfig proxy-url, HTTPS_PROXY, NO_PROXY) are malformed',
  PEERSCOPE_ERR_PROXY_CONNECT: 'the CONNECT proxy did not open a tunnel to the server',
  PEERSCOPE_ERR_DISCOVERY: "a server's discovery document could not be fetched or read",
  PEERSCOPE_ERR_LISTEN: 'a listener could not be started where it was asked to',
  // The local port's upstream failures (proxy-core/engine/upstream/errors.ts): each becomes a 503 Status
  // naming the server and this cause. They travel as plain { code, message } objects, not thrown errors:
  // a failing server can fail thousands of requests a second, and none needs a stack.
  PEERSCOPE_ERR_UPSTREAM_CONNECT_REFUSED: 'TCP connection refused: nothing listens (a server that is down or restarting)',
  PEERSCOPE_ERR_UPSTREAM_CONNECT_TIMEOUT: 'TCP connect or TLS handshake did not finish within the connect timeout',
  PEERSCOPE_ERR_UPSTREAM_UNREACHABLE: 'no route to the host or network, or the CONNECT proxy could not reach it',
  PEERSCOPE_ERR_UPSTREAM_DNS: 'the host name does not resolve',
  PEERSCOPE_ERR_UPSTREAM_TLS: 'TLS handshake failed: the certificate does not verify against the CA, wrong name, alert',
  PEERSCOPE_ERR_UPSTREAM_HEADERS_TIMEOUT: 'connected and sent, but no response headers within the headers timeout',
  PEERSCOPE_ERR_UPSTREAM_RESET: 'the connection was reset or closed before the response headers',
  PEERSCOPE_ERR_UPSTREAM_BAD_RESPONSE: 'the upstream answered something that is not HTTP/1.1',
  PEERSCOPE_ERR_UPSTREAM_FOUND_DOWN:
    "the port's health probes found the server unreachable during a watch or follow: the port ended it cleanly (a 503 before its headers)",
  PEERSCOPE_ERR_UPSTREAM_BODY_INTERRUPTED: 'the upstream failed after the headers were relayed: the client sees a truncated body',
  PEERSCOPE_ERR_UPSTREAM_UNKNOWN_SERVER: 'no pool is configured under that name (removed by setServers, or a routing bug)',
  PEERSCOPE_ERR_UPSTREAM_FAILED: 'any other upstream failure, with the underlying code in the message',
  PEERSCOPE_ERR_CLIENT_ABORTED: 'the client went away; the upstream request was aborted',
  // The simulated apiserver's own store (its errors become Kubernetes Status answers).
  PEERSCOPE_ERR_SIM_API: "a simulated apiserver's handler refused the request; it answers the Status this error carries",
  PEERSCOPE_ERR_SIM_STORE: "the simulated apiserver's object store refused a change (conflict, not found, invalid)",
  PEERSCOPE_ERR_SIM_SELECTOR: 'a label or field selector sent to the simulated apiserver is malformed',
} as const;
export type PeerscopeErrorCode = keyof typeof errorCodes;

export class PeerscopeError extends Error {
  override readonly name: string = 'PeerscopeError';
  constructor(
    readonly code: PeerscopeErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isPeerscopeError(error: unknown): error is PeerscopeError {
  if (error instanceof PeerscopeError) return true;
  // The same class from another bundle or realm (Electron's preload, the renderer, a test's import).
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && Object.hasOwn(errorCodes, code);
}

/** What crosses a wire for a failed call. `code` is a string here: a newer core may send a code this page does not know. */
export const callErrorSchema = z.object({ code: z.string(), message: z.string() });
export type CallError = z.infer<typeof callErrorSchema>;

/**
 * The `{ code, message }` a host sends for a failure. A PeerscopeError's message is Peerscope's own
 * text and goes as it is; any other error is a bug or a library's failure whose text Peerscope did not
 * write (it may hold a URL or a header), so only its code goes and the host logs the rest.
 */
export function toCallError(error: unknown, method: string): CallError {
  if (isPeerscopeError(error)) return { code: error.code, message: error.message };
  return { code: 'PEERSCOPE_ERR_INTERNAL', message: `${method} failed inside the core (its log has the details)` };
}

/** A call's answer as a message transport carries it (Electron's IPC): the result, or the failure as data. */
export type CallReply = { readonly result: unknown } | { readonly error: CallError };

/** The result of a reply, or its failure thrown as a PeerscopeError with the code the core sent. */
export function unwrapReply(reply: unknown): unknown {
  if (reply && typeof reply === 'object' && 'result' in reply) return reply.result;
  const error = reply && typeof reply === 'object' && 'error' in reply ? callErrorSchema.safeParse(reply.error) : undefined;
  if (error?.success) throw fromCallError(error.data);
  throw new PeerscopeError('PEERSCOPE_ERR_TRANSPORT', 'malformed reply from the Peerscope core');
}

/** The error a caller sees for a `{ code, message }` that came back over a wire. */
export function fromCallError(wire: CallError): PeerscopeError {
  const code = Object.hasOwn(errorCodes, wire.code) ? (wire.code as PeerscopeErrorCode) : 'PEERSCOPE_ERR_INTERNAL';
  return new PeerscopeError(code, wire.message);
}
