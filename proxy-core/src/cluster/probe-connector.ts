// The connect (TCP + TLS) of a readiness probe, timed by a timer of its own. undici times connects
// longer than 1 s on its coarse timers (ticks of ~0.5 s) and fires them up to a second late: half a
// probe interval, and a silent server must be told within two (server-reader.ts).
import type { buildConnector as BuildConnector } from 'undici';

/** `connector`, failing with UND_ERR_CONNECT_TIMEOUT when no connection is made within `timeoutMs`. */
export function timedConnector(connector: BuildConnector.connector, timeoutMs: number): BuildConnector.connector {
  return (options, callback) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      const port = options.port || (options.protocol === 'https:' ? '443' : '80');
      const error = Object.assign(
        new Error(`no connection to ${options.hostname}:${port} within ${timeoutMs} ms (TCP and TLS handshake)`),
        {
          code: 'UND_ERR_CONNECT_TIMEOUT',
        },
      );
      callback(error, null);
    }, timeoutMs);
    connector(options, (...args: BuildConnector.CallbackArgs) => {
      // Too late: the probe has failed already; the connection, if it came, is not wanted.
      if (settled) return void args[1]?.destroy();
      settled = true;
      clearTimeout(timer);
      callback(...args);
    });
  };
}
