// Types for the undici modules proxy-core loads one by one (see undici.ts): the same classes and
// functions its index exports, whose types it ships.
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';
  const PoolClass: typeof Pool;
  export default PoolClass;
}
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}
declare module 'undici/lib/core/connect.js' {
  import type { buildConnector } from 'undici';
  const connector: typeof buildConnector;
  export default connector;
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  /** Called with a dispatcher as `this`, as undici's index does. */
  const request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
  export default request;
}
