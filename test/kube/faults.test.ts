// Issue 34, real faults on real servers: two kube-apiservers of one release on one etcd; the same
// load (fault-load.ts) runs through Peerscope and straight to the servers round-robin while one
// server is (a) blackholed — an nftables drop of its address inside the test network (blackhole.ts)
// — and then (b) SIGKILLed by PID and started again. Each side is measured the same way and printed
// side by side; the port's promises are asserted: no false 404, every write's outcome known or a
// Status that says it may not have happened, every answer within the connect and headers timeouts,
// the server's state shown within two probe intervals, its watches ended within two probe intervals,
// and the server back in service within two probe intervals of answering again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../proxy-core/engine/core.js';
import { kubeBinaries, skipKube } from './binaries.js';
import { blackhole, blackholeUnavailable } from './blackhole.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { FIGURES_HEADER, figuresRow } from './fault-figures.js';
import { HEADERS_TIMEOUT_MS, PROBE_INTERVAL_MS, expectPromisesKept, underLoad, until, type FaultBed } from './fault-run.js';

const FAULT_MS = 12_000;
const SERVER = { mvp: 'no-peer-ca' } as const;

describe.skipIf(skipKube())('real faults under load, through Peerscope and straight to the servers (issue 34)', () => {
  let cp: ControlPlane;
  let core: Core;
  let portUrl: string;
  const release = kubeBinaries?.newer ?? '';
  const rows: string[] = [];

  beforeAll(async () => {
    cp = await startControlPlane({
      servers: [
        { host: 'kube-a', release, ...SERVER },
        { host: 'kube-b', release, ...SERVER },
      ],
    });
    core = createCore({
      servers: cp.servers.map((x) => ({ name: x.spec.host, url: x.url, ca: cp.pki.caPem, bearerToken: () => cp.pki.adminToken })),
      listen: { port: 0 },
      probeIntervalMs: PROBE_INTERVAL_MS,
      upstream: { headersTimeoutMs: HEADERS_TIMEOUT_MS },
      ownMetricsIntervalMs: 0,
    });
    portUrl = (await core.start()).url;
  });
  afterAll(async () => {
    if (rows.length)
      console.log([`faults with ${release}, probes every ${PROBE_INTERVAL_MS / 1000} s:`, ...FIGURES_HEADER, ...rows].join('\n'));
    await core?.close(0);
    await cp?.close();
  });

  const bed = (): FaultBed => ({
    cp,
    core,
    portUrl,
    serverUrls: () => cp.servers.map((x) => x.url),
  });
  const kubeAUnreachable = () => core.serverStatuses().find((p) => p.name === 'kube-a')?.health === 'unreachable';

  it('a blackholed server (nftables drop of its address): its watches end cleanly, nothing is lost, every answer in time', async (ctx) => {
    const why = blackholeUnavailable();
    if (why) {
      console.log(`skipping the blackhole: ${why}`);
      return ctx.skip();
    }
    let hole: ReturnType<typeof blackhole> | undefined;
    try {
      const r = await underLoad(bed(), {
        fault: 'blackhole',
        inject: () => void (hole = blackhole(cp.server('kube-a').ip, cp.port)),
        heal: async () => hole?.lift(),
        faultMs: FAULT_MS,
        noticed: kubeAUnreachable,
      });
      rows.push(
        figuresRow('blackhole of kube-a 12 s', 'through Peerscope', r.port, r.noticeMs, r.recoverMs),
        figuresRow('', 'straight, round-robin', r.direct),
      );
      console.log(`blackhole: kube-a shown unreachable after ${r.noticeMs} ms: ${r.lastError}`);
      expectPromisesKept('blackhole', r);
      expect(r.port.watches.cut, 'watches through the port cut instead of ended').toBe(0);
    } finally {
      hole?.lift();
    }
  }, 240_000);

  it('a SIGKILLed server, started again at its address: nothing is lost, every answer in time', async () => {
    const ip = cp.server('kube-a').ip;
    const r = await underLoad(bed(), {
      fault: 'sigkill',
      inject: () => void process.kill(cp.server('kube-a').process.pid, 'SIGKILL'),
      heal: async () => {
        const killed = cp.server('kube-a').process.child;
        await until('kube-a exits', () => killed.exitCode !== null || killed.signalCode !== null, 10_000);
        await cp.stop('kube-a');
        await cp.start({ host: 'kube-a', release, ...SERVER }, ip);
      },
      faultMs: FAULT_MS,
      noticed: kubeAUnreachable,
    });
    rows.push(
      figuresRow('SIGKILL of kube-a, restarted', 'through Peerscope', r.port, r.noticeMs, r.recoverMs),
      figuresRow('', 'straight, round-robin', r.direct),
    );
    console.log(`SIGKILL: kube-a shown unreachable after ${r.noticeMs} ms: ${r.lastError}`);
    expectPromisesKept('SIGKILL', r);
  }, 240_000);
});
