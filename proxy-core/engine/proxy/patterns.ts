// The regular-expression lists of the port's filters (--accept-origins, --reject-paths,
// --reject-methods), read as kubectl proxy reads its own: a comma-separated list, one pattern per
// item, so a pattern cannot itself contain a comma. Two differences, both toward refusing more:
// - an empty item is dropped (kubectl compiles "" into a pattern that matches everything, so
//   `--reject-paths=` there refuses every request and `--accept-hosts=` accepts every host);
// - how a pattern must match is the caller's choice: the reject lists match anywhere in the value,
//   as kubectl's do (write ^ and $ to anchor), while origins must match whole (see steps/admit.ts, checkOrigin).
import { PeerscopeError } from '../../contract/errors.js';

export class PatternError extends PeerscopeError {
  override readonly name = 'PatternError';
  constructor(message: string) {
    super('PEERSCOPE_ERR_INPUT', message);
  }
}

/** Splits `text` on commas and compiles each item; a bad pattern throws naming `flag` and the item. */
export function parsePatternList(flag: string, text: string): string[] {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const item of items) compilePattern(flag, item, false);
  return items;
}

/** Compiles one pattern; `whole` anchors it at both ends, around every alternative. */
export function compilePattern(flag: string, source: string, whole: boolean): RegExp {
  try {
    return new RegExp(whole ? `^(?:${source})$` : source);
  } catch (err) {
    throw new PatternError(
      `${flag}: "${source}" is not a regular expression (${(err as Error).message.replace(/^Invalid regular expression: /, '')})`,
    );
  }
}
