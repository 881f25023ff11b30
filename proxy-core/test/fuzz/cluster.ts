// The fuzz cluster the port proxies to: which GVRs each fake apiserver serves, the tokens on
// either side, and the head-size limit the port sets. Shared by the request arbitraries, the
// renderer, the oracle and the test, so it sits apart from all of them.
import type { FuzzGvr } from './upstream.js';

/** The fuzz cluster: three servers, each GVR served by some of them (spec §7 style skew). */
export const SERVERS: Record<string, readonly FuzzGvr[]> = (() => {
  const common: FuzzGvr[] = [
    { group: '', version: 'v1', resource: 'pods', namespaced: true },
    { group: '', version: 'v1', resource: 'configmaps', namespaced: true },
    { group: '', version: 'v1', resource: 'namespaces', namespaced: false },
    { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true },
  ];
  const deviceclasses: FuzzGvr = { group: 'resource.k8s.io', version: 'v1', resource: 'deviceclasses', namespaced: false };
  const widgets: FuzzGvr = { group: 'fuzz.example', version: 'v1', resource: 'widgets', namespaced: true };
  const gadgets: FuzzGvr = { group: 'fuzz.example', version: 'v2beta1', resource: 'gadgets', namespaced: true };
  return { fa: common, fb: [...common, deviceclasses, widgets], fc: [...common, widgets, gadgets] };
})();

export const SERVER_TOKEN = 'fuzz-server-token';
export const CLIENT_TOKEN = 'Bearer fuzz-client-token';
/** The limit the port sets on a request head (core.ts maxHeaderSize). */
export const PORT_MAX_HEAD = 64 * 1024;
