import { describe, expect, it } from 'vitest';
import { serverRefreshFromArgv } from './server-refresh.js';

describe("the desktop app's --server-refresh", () => {
  it('is the core default without a flag, and reads the flag in both forms', () => {
    expect(serverRefreshFromArgv(['/opt/Peerscope/peerscope', '--no-sandbox'])).toEqual({ notes: [] });
    expect(serverRefreshFromArgv(['electron', '--server-refresh', '5'])).toEqual({ intervalMs: 5_000, notes: [] });
    expect(serverRefreshFromArgv(['electron', '--server-refresh=0'])).toEqual({ intervalMs: 0, notes: [] });
  });

  it('accepts --peer-refresh, its old name, and says it is renamed', () => {
    expect(serverRefreshFromArgv(['electron', '--peer-refresh=2.5'])).toEqual({
      intervalMs: 2_500,
      notes: ['--peer-refresh is renamed --server-refresh; the old name still works'],
    });
  });

  it('refuses both names at once, a missing value and a value that is no number of seconds', () => {
    expect(() => serverRefreshFromArgv(['--peer-refresh', '1', '--server-refresh', '2'])).toThrow(
      'give --server-refresh only: --peer-refresh is its old name',
    );
    expect(() => serverRefreshFromArgv(['--server-refresh'])).toThrow('--server-refresh needs a number of seconds (0 = never)');
    expect(() => serverRefreshFromArgv(['--server-refresh', '-1'])).toThrow('--server-refresh "-1" is not a number of seconds (0 or more)');
    expect(() => serverRefreshFromArgv(['--peer-refresh='])).toThrow('--peer-refresh "" is not a number of seconds (0 or more)');
  });
});
