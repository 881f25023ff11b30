// A client (user agent × user) as a table cell. User agents run long, and the part that tells two
// clients of one program apart is at their end: kube-controller-manager names each controller after
// its commit (`kube-controller-manager/v1.36.0 (linux/amd64) kubernetes/5f3c9a1/system:serviceaccount:
// kube-system:namespace-controller`). So a long one is cut in its middle — the product and release
// kept, then its end — and a table's cells stay as distinct as its clients are.

/** The widest user agent a table prints before cutting it. */
export const CLIENT_WIDTH = 60;
/** The longest product token (`name/version `) kept whole at the start of a cut user agent. */
const MAX_PRODUCT = 36;
/** How far a cut moves on to the start of a word. */
const MAX_SKIP = 12;
const SEPARATORS = /[/: ]/;

export interface Client {
  readonly userAgent: string;
  readonly user: string;
}

/** The user agent, cut in the middle to CLIENT_WIDTH at most: its product and release, `…`, its end. */
export function cutUserAgent(userAgent: string): string {
  if (userAgent.length <= CLIENT_WIDTH) return userAgent;
  const space = userAgent.indexOf(' ');
  const head = space > 0 && space < MAX_PRODUCT ? userAgent.slice(0, space + 1) : userAgent.slice(0, CLIENT_WIDTH / 2);
  const from = userAgent.length - (CLIENT_WIDTH - head.length - 1);
  return `${head}…${userAgent.slice(wordStart(userAgent, from))}`;
}

/** `from`, or the start of the next word past it (after `/`, `:` or a space) when one starts soon: a cut never splits a word it need not. */
function wordStart(text: string, from: number): number {
  if (SEPARATORS.test(text[from - 1] ?? '')) return from;
  const next = text.slice(from, from + MAX_SKIP).search(SEPARATORS);
  return next >= 0 && from + next + 1 < text.length ? from + next + 1 : from;
}

function label(userAgent: string, user: string): string {
  return `${userAgent || '(no user agent)'} (${user || 'no user'})`;
}

/** One client as a cell, its user agent cut (cutUserAgent). */
export function clientLabel(userAgent: string, user: string): string {
  return label(cutUserAgent(userAgent), user);
}

/**
 * The cells of a table's clients, in their order: each cut as clientLabel does, except where the cut
 * would print two different clients alike (they differ only in the middle): those are printed whole.
 */
export function clientLabels(clients: readonly Client[]): string[] {
  const cut = clients.map((c) => clientLabel(c.userAgent, c.user));
  const whole = new Map<string, Set<string>>();
  clients.forEach((c, i) => whole.set(cut[i]!, (whole.get(cut[i]!) ?? new Set()).add(`${c.userAgent}\u0000${c.user}`)));
  return clients.map((c, i) => ((whole.get(cut[i]!)?.size ?? 0) > 1 ? label(c.userAgent, c.user) : cut[i]!));
}
