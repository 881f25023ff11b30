// The contract's calls that change the session: the port's settings (each pushed to subscribers as
// it changes), the read of audit log files, and the simulated control plane's controls.
import { PeerscopeError } from '../../contract/errors.js';
import type { CoreCalls, CoreEvent, SimStatus } from '../../contract/client.js';
import type { Core } from '../../engine/core.js';
import { parsePolicy } from '../../engine/proxy/policy.js';
import type { SimController } from './sim-controller.js';
import { settingsOf } from './views.js';

export type ControlCalls = Pick<
  CoreCalls,
  'setDiscoveryMode' | 'setPolicy' | 'cancelAuditRead' | 'startRollout' | 'pauseRollout' | 'setTrafficRate'
>;

export function controlCalls(
  core: Core,
  sim: SimController | undefined,
  emit: (event: CoreEvent) => void,
  getOverview: CoreCalls['getOverview'],
): ControlCalls {
  const requireSim = (): SimController => {
    if (!sim) throw new PeerscopeError('PEERSCOPE_ERR_NO_SIMULATOR', 'the core does not run on a simulated control plane');
    return sim;
  };
  const changed = () => {
    const settings = settingsOf(core);
    emit({ type: 'settings', settings });
    return settings;
  };
  return {
    async setDiscoveryMode({ mode }) {
      core.setDiscoveryMode(mode);
      return changed();
    },
    async setPolicy(args) {
      const policy = parsePolicy(args.policy);
      if (policy.kind === 'pin' && !core.servers.names().includes(policy.server)) {
        throw new PeerscopeError(
          'PEERSCOPE_ERR_POLICY',
          `no server is named "${policy.server}"; servers: ${core.servers.names().join(', ')}`,
        );
      }
      core.setPolicy(policy);
      return changed();
    },
    async cancelAuditRead() {
      await core.cancelAuditRead();
      return getOverview();
    },
    async startRollout(): Promise<SimStatus> {
      return requireSim().startRollout();
    },
    async pauseRollout(): Promise<SimStatus> {
      return requireSim().pauseRollout();
    },
    async setTrafficRate({ rps }): Promise<SimStatus> {
      return requireSim().setTrafficRate(rps);
    },
  };
}
