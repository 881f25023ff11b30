// The pure routing core: request classification, the route table and the routing decision.
export { requestInfo, exactMetadataName, type RequestInfo } from './request-info.js';
export { RouteTable, buildRouteTable, type RouteRow, type RouteTableServer } from './route-table.js';
export {
  decide,
  serverViewOf,
  NO_ADDRESS_MESSAGE,
  PROXY_ERROR_PREFIX,
  PEER_PROXIED_HEADER,
  REROUTE_HEADERS,
  type Decision,
  type DecisionInput,
  type ServerView,
  type UnavailableReason,
} from './decide.js';
export type { DiscoveryMode } from '../../contract/settings.js';
