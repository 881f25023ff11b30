// What the local port accepts and refuses beyond its own Host names: the options as typed, and their
// patterns compiled once, before anything is started (a bad pattern fails createCore).
import { compilePattern } from '../proxy/patterns.js';

/**
 * What the local port accepts and refuses beyond its own Host names (each list as typed), one field per
 * flag of proxy/port-filters.ts.
 */
export interface PortFilters {
  /** Extra Host header values the port accepts (rule P4). */
  readonly acceptHosts?: readonly string[];
  /**
   * Origins (regular expressions, each matched against the whole Origin) a browser may send requests
   * from; default none: every request a browser marks as from another origin is refused (proxy/steps/admit.ts, checkOrigin).
   */
  readonly acceptOrigins?: readonly string[];
  /** Paths (regular expressions, matched anywhere, as kubectl proxy's --reject-paths) the port refuses. */
  readonly rejectPaths?: readonly string[];
  /** Methods (regular expressions, as kubectl proxy's --reject-methods) the port refuses. */
  readonly rejectMethods?: readonly string[];
}

/** The filters as the request path reads them (proxy/handler.ts's settings); throws on a bad pattern. */
export function compilePortFilters(filters: PortFilters) {
  return {
    acceptOrigins: (filters.acceptOrigins ?? []).map((p) => compilePattern('accept-origins', p, true)),
    filter: {
      rejectPaths: (filters.rejectPaths ?? []).map((p) => compilePattern('reject-paths', p, false)),
      rejectMethods: (filters.rejectMethods ?? []).map((p) => compilePattern('reject-methods', p, false)),
    },
  };
}
