// The connect (TCP + TLS) of a readiness probe, timed by a timer of its own. undici times connects
// longer than 1 s on its coarse timers (ticks of ~0.5 s) and fires them up to a second late: half a
// probe interval, and a silent server must be told within two (server-reader.ts).
// A connect still silent halfway through gets a second one beside it, and the first to connect
// wins: on a lossy link one lost SYN costs the kernel a second before it sends it again, and one more
// lost packet would then fail the probe and call a server unreachable that answers (10 % loss did so
// in one of four 12 s runs of the kube suite). Two connects both silent for the whole timeout is what a
// silent link looks like; a refusal or a TLS failure is an answer, reported at once.
import type { buildConnector as BuildConnector } from 'undici';

/**
 * `connector`, failing with UND_ERR_CONNECT_TIMEOUT when no connection is made within `timeoutMs`;
 * a second connect starts after `secondAfterMs` (half the timeout) if the first has not finished.
 */
export function timedConnector(
  connector: BuildConnector.connector,
  timeoutMs: number,
  secondAfterMs = Math.round(timeoutMs / 2),
): BuildConnector.connector {
  return (options, callback) => {
    let settled = false;
    let pending = 0;
    const settle = (...args: BuildConnector.CallbackArgs) => {
      settled = true;
      clearTimeout(timer);
      clearTimeout(second);
      callback(...args);
    };
    const attempt = () => {
      pending++;
      connector(options, (...args: BuildConnector.CallbackArgs) => {
        pending--;
        // Too late (the probe has failed already, or the other connect won): the connection is not wanted.
        if (settled) return void args[1]?.destroy();
        // A failure while the other connect may still succeed waits for it.
        if (args[0] && pending > 0) return;
        settle(...args);
      });
    };
    const timer = setTimeout(() => {
      const port = options.port || (options.protocol === 'https:' ? '443' : '80');
      const error = Object.assign(
        new Error(`no connection to ${options.hostname}:${port} within ${timeoutMs} ms (TCP and TLS handshake)`),
        {
          code: 'UND_ERR_CONNECT_TIMEOUT',
        },
      );
      settle(error, null);
    }, timeoutMs);
    const second = setTimeout(() => {
      if (!settled && pending > 0) attempt();
    }, secondAfterMs);
    attempt();
  };
}
