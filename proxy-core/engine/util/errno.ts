// A Node system error in words a person can act on: the meaning first, the code kept beside it for
// searching ("no such file (ENOENT)"), never the code alone.

const MEANINGS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  EMFILE: 'too many open files',
  EADDRINUSE: 'the address is already in use (another program listens there; pick another port, or port 0 for a free one)',
  EADDRNOTAVAIL: 'not an address of this machine',
  ECONNREFUSED: 'connection refused (nothing listens there)',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'timed out',
  ENOTFOUND: 'the host name is not known',
};

/** `no such file or directory (ENOENT)`; an error without a known code keeps its message. */
export function errnoWords(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const meaning = code ? MEANINGS[code] : undefined;
  if (meaning) return `${meaning} (${code})`;
  return code ?? (err instanceof Error ? err.message : String(err));
}
