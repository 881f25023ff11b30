// The targets of the throughput bench and what the bench knows of each: its name, label, URL and
// processes. Each runs in its own process so its CPU and memory can be read from /proc.
//
//   direct            the client talks HTTPS to the "new" apiserver itself (no proxy)
//   peerscope         bin/peerscope serve, both apiservers, round-robin (half the requests rerouted)
//   peerscope-local   bin/peerscope serve, the "new" apiserver only (no rerouting)
//   kubectl           /usr/bin/kubectl proxy, generated kubeconfig with the CA and a token
//   nginx             one worker, upstream keepalive, proxy_ssl_verify against the CA
//   bare-undici       node:http + one undici Pool, no routing (bare-proxy.ts)
//   node-floor        a raw socket server + one undici Pool, no checks (floor-proxy.ts)
//
// Node targets start in node-targets.ts, kubectl and nginx in external-targets.ts, the fake
// apiservers in upstream-process.ts.
import type { UpstreamStats } from './upstream.js';

export interface Files {
  readonly dir: string;
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  readonly token: string;
  readonly tokenFile: string;
  readonly buildDir: string;
}

export interface UpstreamProcess {
  readonly name: string;
  readonly url: string;
  readonly pids: readonly number[];
  stats(): Promise<UpstreamStats>;
  stop(): Promise<void>;
}

export type TargetName =
  'direct' | 'peerscope' | 'peerscope-local' | 'kubectl' | 'nginx' | 'bare-undici' | 'node-floor' | 'node-pipe' | 'http-floor';

export interface Target {
  readonly name: TargetName;
  /** Base URL the load generator uses. */
  readonly url: string;
  /** Direct only: the client must speak TLS (and verify with the CA) and bring the token. */
  readonly direct: boolean;
  /** The proxy's processes (its whole tree, for nginx's worker); empty for direct. */
  pids(): number[];
  stop(): Promise<void>;
  /** Relays a watch only (the byte pipe): left out of the GET, LIST and POST runs. */
  readonly watchOnly?: boolean;
}

export const TARGET_LABEL: Record<TargetName, string> = {
  direct: 'direct (no proxy)',
  peerscope: 'Peerscope (2 servers, round-robin)',
  'peerscope-local': 'Peerscope local-only (1 server)',
  kubectl: 'kubectl proxy',
  nginx: 'nginx (1 worker, keepalive)',
  'bare-undici': 'bare undici proxy',
  'node-floor': 'Node floor (raw socket + undici)',
  'node-pipe': 'Node byte pipe (watch only)',
  'http-floor': 'Node floor behind node:http',
};
