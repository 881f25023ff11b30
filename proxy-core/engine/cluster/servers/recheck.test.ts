// Which servers the look before a 404/503 visits, and how requests share looks. The servers here are
// plain records (the look itself talks to nobody); server-set-recheck.test.ts runs it over real sockets.
import { describe, expect, it } from 'vitest';
import type { HealthState } from '../../../contract/servers.js';
import type { ServerDiscovery } from '../../discovery/fetch.js';
import type { CachedDiscovery } from './discovery-cache.js';
import { OutOfServiceRecheck, type RecheckTarget } from './recheck.js';

const DOC = { gvrs: [] } as unknown as ServerDiscovery;

interface Fake {
  health: HealthState;
  discovery: { document?: ServerDiscovery; error?: string; inFlight?: Promise<void> };
  healthAfterProbe?: HealthState;
}

function target(servers: Record<string, Fake>) {
  const visits: string[] = [];
  let probeGate: Promise<void> = Promise.resolve();
  const t: RecheckTarget = {
    inService: () => Object.keys(servers),
    health: (n) => servers[n]?.health ?? 'unknown',
    discovery: (n): CachedDiscovery | undefined => servers[n]?.discovery,
    probe: async (n) => {
      visits.push(`probe ${n}`);
      await probeGate;
      const s = servers[n];
      if (s?.healthAfterProbe) s.health = s.healthAfterProbe;
    },
    refresh: async (n) => {
      visits.push(`refresh ${n}`);
      const s = servers[n];
      if (s) s.discovery = { document: DOC };
    },
  };
  return { t, visits, gate: (p: Promise<void>) => (probeGate = p) };
}

describe('OutOfServiceRecheck', () => {
  it('visits only servers out of service or whose discovery is not current, and reads one that is back', async () => {
    const servers: Record<string, Fake> = {
      current: { health: 'ready', discovery: { document: DOC } },
      stale: { health: 'ready', discovery: { document: DOC, error: 'HTTP 500' } },
      down: { health: 'unreachable', discovery: {}, healthAfterProbe: 'ready' },
      draining: { health: 'draining', discovery: { document: DOC } },
    };
    const { t, visits } = target(servers);
    await new OutOfServiceRecheck(t).recheck();
    expect(visits.sort()).toEqual(['probe down', 'probe draining', 'probe stale', 'refresh down', 'refresh stale']);
    expect(servers.down?.discovery.document).toBe(DOC);
  });

  it('waits for a read already under way instead of probing', async () => {
    let landed = false;
    const inFlight = new Promise<void>((r) =>
      setTimeout(() => {
        landed = true;
        r();
      }, 20),
    );
    const { t, visits } = target({ reading: { health: 'ready', discovery: { document: DOC, inFlight } } });
    await new OutOfServiceRecheck(t).recheck();
    expect(visits).toEqual([]);
    expect(landed).toBe(true);
  });

  it('looks at nobody while every server is in service', async () => {
    const { t, visits } = target({ a: { health: 'ready', discovery: { document: DOC } } });
    await new OutOfServiceRecheck(t).recheck();
    expect(visits).toEqual([]);
  });

  it('shares one look among requests arriving while it runs, and starts one more for the latecomers', async () => {
    let release: () => void = () => undefined;
    const { t, visits, gate } = target({ b: { health: 'not-ready', discovery: {} } });
    gate(new Promise<void>((r) => (release = r)));
    const recheck = new OutOfServiceRecheck(t);
    const first = recheck.recheck();
    // Arrived after the first look started: it cannot trust that look, so it waits for the next.
    const later = Array.from({ length: 10 }, () => recheck.recheck(performance.now() + 1));
    expect(visits).toEqual(['probe b']);
    // Arrived before the first look started: that look is enough.
    const earlier = recheck.recheck(performance.now() - 60_000);
    release();
    await Promise.all([first, earlier, ...later]);
    expect(visits).toEqual(['probe b', 'probe b']);
  });
});
