// Whether a report's target moves the servers up or down: a target older than a current server is a
// downgrade (a rollback), and the report says so in its title and its words rather than "upgrade".
import { compareReleases } from '../util/release-order.js';

export type Change = 'upgrade' | 'downgrade';

/** `downgrade` when the target is older than any current server's release; else `upgrade`. */
export function changeOf(current: readonly (string | undefined)[], targetGitVersion: string): Change {
  return current.some((v) => v !== undefined && compareReleases(targetGitVersion, v) < 0) ? 'downgrade' : 'upgrade';
}
