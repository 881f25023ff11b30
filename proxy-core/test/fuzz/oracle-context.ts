// What the oracle knows about the fuzz cluster: the upstreams' ports and the GVRs each serves.
// Its own file so the oracle and its checks can share it without importing one another.
import type { FuzzGvr } from './upstream.js';

export interface OracleContext {
  /** Upstream name → its port. */
  readonly upstreamPorts: ReadonlyMap<string, number>;
  readonly servers: Readonly<Record<string, readonly FuzzGvr[]>>;
}
