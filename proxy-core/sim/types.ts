// The simulated control plane's public shape: what the rollout driver, the traffic generator, the
// CLI, the proxy tests and the UI rely on. Implementations live beside this file.
import type { ReleaseCatalog } from '../engine/releases/index.js';

/** Life of one simulated kube-apiserver during a rollout. */
export type SimServerState = 'stopped' | 'starting' | 'ready' | 'draining' | 'down';

export interface SimServerInfo {
  /** Stable name, also the apiserver identity ("apiserver-<name>" is the identity lease name). */
  readonly name: string;
  /** https://127.0.0.1:PORT or http://… ; the port is kept across restarts. */
  readonly url: string;
  readonly release: string;
  readonly gitVersion: string;
  readonly state: SimServerState;
}

/** One event of the simulated control plane, for logs, tests and the UI. */
export type SimEvent =
  | { type: 'server-state'; at: number; server: string; state: SimServerState; release: string }
  | { type: 'rollout-step'; at: number; server: string; from: string; to: string; phase: 'draining' | 'down' | 'up' }
  | { type: 'rollout-done'; at: number; release: string };

export interface SimServer {
  readonly name: string;
  info(): SimServerInfo;
  /** The catalog it serves now. */
  release(): ReleaseCatalog;
  /** Opens the port (the same port again after a stop) and becomes ready. */
  start(): Promise<void>;
  /** readyz fails at once, open watches end cleanly, new connections are refused after graceMs. */
  drain(graceMs: number): Promise<void>;
  /** Closes the port; in-flight requests are cut. */
  stop(): Promise<void>;
  /** Serves another release from the next start on. */
  setRelease(release: ReleaseCatalog): void;
}
