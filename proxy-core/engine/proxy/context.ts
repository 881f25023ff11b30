// What the request path works with: the engine's parts a step may read or act on.
import type { DiscoveryMode } from '../../contract/settings.js';
import type { ServerSet } from '../cluster/server-set.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { Upstreams } from '../upstream/pool.js';
import type { OpenApiIndexCache } from './openapi-index-cache.js';
import type { OpenApiV2Cache } from './openapi-v2-cache.js';
import type { HandlingServerPicker } from './policy.js';
import type { RouteState } from './route-state.js';
import type { ImpactSource } from '../impact/of-core.js';

export interface ProxyContext {
  readonly servers: ServerSet;
  readonly state: RouteState;
  /** The merged OpenAPI v3 index (P8). */
  readonly openApiIndex: OpenApiIndexCache;
  /** The merged OpenAPI v2 document (P8). */
  readonly openApiV2: OpenApiV2Cache;
  readonly upstreams: Upstreams;
  readonly telemetry: Telemetry;
  readonly picker: HandlingServerPicker;
  readonly settings: {
    discoveryMode: DiscoveryMode;
    /** `--faithful`: the servers' own MVP exactly (rule P8 off). */
    readonly faithful: boolean;
    readonly acceptHosts: readonly string[];
    /** Origins a browser may send requests from (whole-match patterns); none by default. */
    readonly acceptOrigins: readonly RegExp[];
    readonly filter: RequestFilter;
  };
  readonly listenerPort: () => number;
  readonly random: () => number;
  /** The current routing snapshot, served at /.peerscope/snapshot. */
  readonly snapshot: () => unknown;
  /**
   * What /.peerscope/impact reports from: the core itself, as the snapshot and the app's screen do, so
   * every caller's report has the same input (the cluster source included); absent, the port's own.
   */
  readonly impact?: () => ImpactSource;
  /** Aborted when the port shuts down: watches and follows end cleanly. */
  readonly shutdown: AbortSignal;
  /** Aborted when the server is found unreachable: its watches and follows end cleanly (server-down.ts). */
  readonly serverDown: (name: string) => AbortSignal;
}

/** kubectl proxy's --reject-paths and --reject-methods (steps/admit.ts, request-filter). */
export interface RequestFilter {
  readonly rejectPaths: readonly RegExp[];
  readonly rejectMethods: readonly RegExp[];
}

/** The port's own endpoints are the paths under this prefix (never a Kubernetes path; steps/own-endpoints.ts). */
export const OWN_ENDPOINTS_PREFIX = '/.peerscope/';
