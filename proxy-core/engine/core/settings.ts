// The port's settings: the handling policy and discovery mode a host may switch (each switch noted in
// the recording), the fixed `--faithful`, and what the port accepts and refuses.
import type { DiscoveryMode } from '../../contract/settings.js';
import type { ProxyContext } from '../proxy/context.js';
import { formatPolicy, HandlingServerPicker, type HandlingPolicy } from '../proxy/policy.js';
import type { RecordingFeed } from '../recording/feed.js';
import { compilePortFilters, type PortFilters } from './port-filters.js';

export interface SettingsOptions extends PortFilters {
  readonly policy?: HandlingPolicy;
  readonly discoveryMode?: DiscoveryMode;
  readonly faithful?: boolean;
}

export class PortSettings {
  /** Picks each request's handling server by the policy of the moment. */
  readonly picker: HandlingServerPicker;
  /** What the request path reads (proxy/context.ts), switched in place. */
  readonly handling: ProxyContext['settings'];
  private recording: RecordingFeed | undefined;

  /** Throws on a bad filter pattern, before anything is started. */
  constructor(options: SettingsOptions, random: () => number) {
    const filters = compilePortFilters(options);
    this.picker = new HandlingServerPicker(options.policy ?? { kind: 'round-robin' }, random);
    this.handling = {
      discoveryMode: options.discoveryMode ?? 'peer-aggregated',
      faithful: options.faithful ?? false,
      acceptHosts: options.acceptHosts ?? [],
      ...filters,
    };
  }

  /** From now on each switch is noted in `recording`, which starts with the settings as they are. */
  recordInto(recording: RecordingFeed): void {
    this.recording = recording;
    recording.setting('policy', formatPolicy(this.picker.policy));
    recording.setting('discovery-mode', this.handling.discoveryMode);
  }

  policy(): HandlingPolicy {
    return this.picker.policy;
  }

  setPolicy(policy: HandlingPolicy): void {
    this.picker.policy = policy;
    this.recording?.setting('policy', formatPolicy(policy));
  }

  discoveryMode(): DiscoveryMode {
    return this.handling.discoveryMode;
  }

  setDiscoveryMode(mode: DiscoveryMode): void {
    this.handling.discoveryMode = mode;
    this.recording?.setting('discovery-mode', mode);
  }

  faithful(): boolean {
    return this.handling.faithful;
  }
}
