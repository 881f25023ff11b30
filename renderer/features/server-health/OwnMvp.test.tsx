// @vitest-environment jsdom
// A real server's own Mixed Version Proxy on its card: the verdict in words, its own reroutes by GVR
// beside Peerscope's, and "not exposed" (never 0) where the server has no peer proxy.
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { OwnMvp } from '../../../proxy-core/contract/index.js';
import { OwnMvpFacts } from './OwnMvp.js';

afterEach(cleanup);

const metrics = {
  rerouted: [],
  reroutedTotal: 0,
  proxyErrors: [],
  proxyErrorsTotal: 0,
  discoverySyncErrors: [],
  discoverySyncErrorsTotal: 0,
};

describe('OwnMvpFacts', () => {
  it('on: the verdict, the series it rerouted and what Peerscope rerouted', () => {
    const mvp: OwnMvp = {
      verdict: 'on',
      summary: "apiserver-b's own Mixed Version Proxy is on",
      featureGate: 'yes',
      peerCaFile: 'yes',
      advertisedAddress: '10.0.0.2:6443',
      peerAggregatedDiscovery: 'yes',
      evidence: [],
      metrics: {
        ...metrics,
        state: 'exposed',
        rerouted: [
          { labels: { code: '200', group: '', version: '', resource: '' }, value: 8 },
          { labels: { code: '200', group: 'coordination.k8s.io', version: 'v1beta1', resource: 'leasecandidates' }, value: 5 },
        ],
        reroutedTotal: 13,
      },
      peerscope: { reroutedAway: 3, reroutedHere: 0 },
    };
    render(<OwnMvpFacts mvp={mvp} />);
    const section = screen.getByRole('region', { name: 'its own Mixed Version Proxy' });
    expect(section.textContent).toContain("apiserver-b's own Mixed Version Proxy is on");
    expect(section.textContent).toContain('it rerouted13');
    expect(section.textContent).toContain('Peerscope rerouted3 away from it, 0 to it');
    const table = screen.getByRole('table', { name: 'requests it rerouted, by GVR and code' });
    expect(table.textContent).toContain('discovery2008');
    expect(table.textContent).toContain('coordination.k8s.io/v1beta1/leasecandidates2005');
  });

  it('off: says why, and its counters are not exposed rather than zero', () => {
    const mvp: OwnMvp = {
      verdict: 'off',
      summary: "sim-2's own Mixed Version Proxy is off: no --peer-ca-file",
      featureGate: 'yes',
      peerCaFile: 'no',
      peerAggregatedDiscovery: 'no',
      evidence: [],
      metrics: { ...metrics, state: 'not-exposed', reroutedTotal: null, proxyErrorsTotal: null, discoverySyncErrorsTotal: null },
    };
    render(<OwnMvpFacts mvp={mvp} />);
    const section = screen.getByRole('region', { name: 'its own Mixed Version Proxy' });
    expect(section.textContent).toContain('no --peer-ca-file');
    expect(section.textContent).toContain('it reroutednot exposed (no peer proxy)');
    expect(section.textContent).not.toMatch(/it rerouted0/);
    expect(screen.queryByRole('table')).toBeNull();
  });
});
