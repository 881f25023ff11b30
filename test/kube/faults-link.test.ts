// Issue 34, link and etcd faults on real servers: kube-a runs behind Toxiproxy (toxiproxy.ts: the
// proxy on its advertised address, the server bound on another), kube-b plainly, both on one etcd.
// The same load as faults.test.ts (fault-run.ts) runs through Peerscope and straight to the servers
// round-robin while kube-a's link is (a) slowed by 300 ms (a Toxiproxy latency toxic on what it
// sends) or (b) loses 10 % of its packets (nftables `numgen random`, blackhole.ts), while (c) etcd is
// stopped for 15 s and started again, and (d) while WebSocket watches — the port's tunnel path —
// are open on kube-a when its address goes silent (an nftables blackhole). Each side is printed side
// by side and the port's promises are asserted, as in faults.test.ts; a slow server must keep its
// state and its watches.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../proxy-core/engine/core.js';
import { kubeBinaries, skipKube } from './binaries.js';
import { blackhole, blackholeUnavailable, lossyLink, type Blackhole } from './blackhole.js';
import { serverIps, startControlPlane, type ControlPlane } from './control-plane.js';
import { stopEtcd, type EtcdOutage } from './etcd-outage.js';
import { FIGURES_HEADER, figuresRow } from './fault-figures.js';
import {
  HEADERS_TIMEOUT_MS,
  PROBE_INTERVAL_MS,
  answersNotReady,
  expectPromisesKept,
  underLoad,
  until,
  type FaultBed,
  type FaultRun,
} from './fault-run.js';
import { startBehindToxiproxy, toxiproxyBinary, type ProxiedServer } from './toxiproxy.js';

const FAULT_MS = 12_000;
const ETCD_DOWN_MS = 15_000;
const DELAY_MS = 300;
const LOSS_PERCENT = 10;
const SERVER = { mvp: 'no-peer-ca' } as const;

const toxiproxyMissing = toxiproxyBinary().missing;
const skip = skipKube() || toxiproxyMissing !== undefined;
if (!skipKube() && toxiproxyMissing) console.log(`skipping the link and etcd faults: ${toxiproxyMissing}`);

describe.skipIf(skip)('link and etcd faults under load, through Peerscope and straight to the servers (issue 34)', () => {
  let cp: ControlPlane;
  let kubeA: ProxiedServer;
  let core: Core;
  let portUrl: string;
  let etcd: EtcdOutage | undefined;
  const release = kubeBinaries?.newer ?? '';
  const rows: string[] = [];
  const started = Date.now();

  beforeAll(async () => {
    // kube-b on the first address; kube-a advertised on the second (Toxiproxy), bound on the third;
    // Toxiproxy's API on the fourth.
    cp = await startControlPlane({ servers: [{ host: 'kube-b', release, ...SERVER }], spareIps: 3 });
    const [, ip, bindIp, apiIp] = serverIps(4) as [string, string, string, string];
    kubeA = await startBehindToxiproxy(cp, { host: 'kube-a', release, ...SERVER }, { ip, bindIp, apiIp });
    core = createCore({
      servers: [
        { name: 'kube-a', url: kubeA.url, ca: cp.pki.caPem, bearerToken: () => cp.pki.adminToken },
        { name: 'kube-b', url: cp.server('kube-b').url, ca: cp.pki.caPem, bearerToken: () => cp.pki.adminToken },
      ],
      listen: { port: 0 },
      probeIntervalMs: PROBE_INTERVAL_MS,
      upstream: { headersTimeoutMs: HEADERS_TIMEOUT_MS },
      ownMetricsIntervalMs: 0,
    });
    portUrl = (await core.start()).url;
    await until('the port shows both servers ready', () => core.serverStatuses().every((p) => p.health === 'ready'), 30_000);
  });
  afterAll(async () => {
    if (rows.length)
      console.log(
        [`link and etcd faults with ${release}, probes every ${PROBE_INTERVAL_MS / 1000} s:`, ...FIGURES_HEADER, ...rows].join('\n'),
      );
    console.log(`faults-link.test.ts: ${Math.round((Date.now() - started) / 1000)} s in all`);
    await core?.close(0);
    await kubeA?.close();
    await cp?.close();
    await etcd?.close();
  });

  const bed = (): FaultBed => ({ cp, core, portUrl, serverUrls: () => [kubeA.url, cp.server('kube-b').url] });
  const say = (name: string, r: FaultRun) => {
    if (r.noticeMs !== undefined)
      console.log(
        `${name}: shown when noticed: ${r.shownWhenNoticed.map((p) => `${p.name} ${p.health}${p.failingChecks.length ? ` (failing: ${p.failingChecks.join(', ')})` : ''}${p.lastError ? ` (${p.lastError})` : ''}`).join('; ')}`,
      );
    if (r.port.own503Messages.length) console.log(`${name}: the port's own 503s said: ${r.port.own503Messages.join(' | ')}`);
    console.log(
      `${name}: noticed ${r.noticeMs ?? '—'} ms (the servers' own /readyz failing when asked ${r.serversShowMs ?? '—'} ms after the fault), back ${r.recoverMs ?? '—'} ms, kube-a's last error: ${r.lastError ?? 'none'}; states shown other than ready: ${[...r.healthSeen].join(', ') || 'none'}`,
    );
  };

  it('a slow link (300 ms added to what kube-a sends): kube-a stays ready, its watches stay open, nothing is lost', async () => {
    const r = await underLoad(bed(), {
      fault: 'delay',
      inject: () => kubeA.delay(DELAY_MS),
      heal: () => kubeA.heal(),
      faultMs: FAULT_MS,
    });
    rows.push(
      figuresRow(`${DELAY_MS} ms delay on kube-a 12 s`, 'through Peerscope', r.port),
      figuresRow('', 'straight, round-robin', r.direct),
    );
    say('delay', r);
    expectPromisesKept('delay', r);
    expect([...r.healthSeen], 'a slow server shown other than ready').toEqual([]);
    expect(r.port.watches.clean + r.port.watches.cut, 'watches through the port ended while the server was merely slow').toBe(0);
  }, 240_000);

  it("a lossy link (10 % of kube-a's packets dropped): nothing is lost, every answer in time", async (ctx) => {
    const why = blackholeUnavailable();
    if (why) {
      console.log(`skipping the lossy link: ${why}`);
      return ctx.skip();
    }
    let loss: Blackhole | undefined;
    try {
      const r = await underLoad(bed(), {
        fault: 'loss',
        inject: () => void (loss = lossyLink(kubeA.ip, cp.port, LOSS_PERCENT)),
        heal: async () => loss?.lift(),
        faultMs: FAULT_MS,
      });
      rows.push(
        figuresRow(`${LOSS_PERCENT} % loss on kube-a 12 s`, 'through Peerscope', r.port),
        figuresRow('', 'straight, round-robin', r.direct),
      );
      say('loss', r);
      expectPromisesKept('loss', r);
    } finally {
      loss?.lift();
    }
  }, 240_000);

  it('etcd stopped for 15 s and started again: the port shows every server not ready, answers with Statuses, loses no write, recovers', async () => {
    const r = await underLoad(bed(), {
      fault: 'etcd',
      inject: async () => {
        etcd = await stopEtcd(cp);
      },
      heal: async () => etcd?.restart(),
      faultMs: ETCD_DOWN_MS,
      noticed: () => core.serverStatuses().every((p) => p.health !== 'ready'),
      // Each server's own /readyz takes seconds to fail its etcd check: the port is judged from then.
      serversShow: async () => {
        const askedAt = Date.now();
        const failing = await Promise.all(
          bed()
            .serverUrls()
            .map((u) => answersNotReady(bed(), u)),
        );
        return failing.every(Boolean) ? askedAt : undefined;
      },
      heartbeatFails: true,
    });
    const own =
      r.serversShowMs === undefined ? '' : ` (the servers' own /readyz failing when asked ${(r.serversShowMs / 1000).toFixed(1)} s)`;
    rows.push(
      figuresRow(`etcd stopped 15 s${own}`, 'through Peerscope', r.port, r.noticeMs, r.recoverMs),
      figuresRow('', 'straight, round-robin', r.direct),
    );
    say('etcd', r);
    // Every watch is silent while etcd is (the heartbeat cannot be written either): stalls are not the port's.
    expectPromisesKept('etcd', r, { watchStalls: false });
    // The state and its reason: each server not ready, its failing etcd check named.
    for (const p of r.shownWhenNoticed) {
      expect(p.health, p.name).toBe('not-ready');
      expect(
        p.failingChecks.some((c) => c.includes('etcd')),
        `${p.name} failing: ${p.failingChecks.join(', ')}`,
      ).toBe(true);
    }
  }, 240_000);

  it('a WebSocket watch tunnelled to a server whose address goes silent is ended within two probe intervals', async (ctx) => {
    const why = blackholeUnavailable();
    if (why) {
      console.log(`skipping the silent tunnel: ${why}`);
      return ctx.skip();
    }
    const ns = 'tunnel';
    expect((await cp.call('kube-b', '/api/v1/namespaces', { method: 'POST', body: { metadata: { name: ns } } })).status).toBe(201);
    const port = Number(new URL(portUrl).port);
    // Through the port (the handling server is picked in turn: some land on kube-a), and one straight to kube-a.
    const tunnels = await Promise.all(
      Array.from({ length: 6 }, () => openWebSocketWatch('127.0.0.1', port, ns, `http://127.0.0.1:${port}`)),
    );
    const onA = tunnels.filter((t) => /answering=kube-a/.test(t.route));
    const onB = tunnels.filter((t) => /answering=kube-b/.test(t.route));
    expect(onA.length, `tunnels answered by kube-a (routes: ${tunnels.map((t) => t.route).join(' | ')})`).toBeGreaterThan(0);
    expect(onB.length).toBeGreaterThan(0);
    // The same watch straight to kube-a, as a client without Peerscope holds it.
    const straight = await openWebSocketWatch(kubeA.ip, cp.port, ns, 'https://peerscope.test', {
      ca: cp.pki.caPem,
      token: cp.pki.adminToken,
    });
    tunnels.push(straight);
    let hole: Blackhole | undefined;
    try {
      const silentAt = Date.now();
      hole = blackhole(kubeA.ip, cp.port);
      const endedAt = await Promise.race([
        Promise.all(onA.map((t) => t.closed)),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('the tunnels on kube-a still open 20 s after it went silent')), 20_000),
        ),
      ]);
      const slowestMs = Math.max(...endedAt) - silentAt;
      console.log(
        `silent tunnel: ${onA.length} WebSocket watches through the port on kube-a ended ${endedAt.map((t) => t - silentAt).join(', ')} ms after the blackhole; kube-a: ${core.servers.lastError('kube-a')}`,
      );
      expect(slowestMs, 'a tunnel to the silent server outlived two probe intervals').toBeLessThanOrEqual(2 * PROBE_INTERVAL_MS + 1_000);
      // Only the silent server's tunnels end.
      expect(onB.every((t) => !t.socket.destroyed && !t.ended)).toBe(true);
      console.log(
        `silent tunnel: the same watch straight to kube-a ${straight.ended ? 'ended' : `still open ${((Date.now() - silentAt) / 1000).toFixed(1)} s after the blackhole (TCP says nothing)`}`,
      );
    } finally {
      hole?.lift();
      for (const t of tunnels) t.socket.destroy();
    }
  }, 120_000);
});

interface WebSocketWatch {
  readonly socket: Socket;
  /** The port's X-Peerscope-Route on the 101. */
  readonly route: string;
  /** Resolves with the time the socket closed or ended. */
  readonly closed: Promise<number>;
  readonly ended: boolean;
}

/**
 * A watch over WebSocket (kube-apiserver serves watches so to browsers) on a raw socket: the 101's
 * head is read, frames are not. With `straight`, straight to a server (TLS, the admin token).
 */
async function openWebSocketWatch(
  host: string,
  port: number,
  ns: string,
  origin: string,
  straight?: { ca: string; token: string },
): Promise<WebSocketWatch> {
  const socket = straight ? tlsConnect({ host, port, ca: straight.ca }) : connect(port, host);
  await once(socket, straight ? 'secureConnect' : 'connect');
  socket.write(
    [
      `GET /api/v1/namespaces/${ns}/configmaps?watch=true HTTP/1.1`,
      `Host: ${host}:${port}`,
      ...(straight ? [`Authorization: Bearer ${straight.token}`] : []),
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      `Origin: ${origin}`,
      '',
      '',
    ].join('\r\n'),
  );
  let buffered = '';
  const head = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no 101 within 30 s: ${buffered}`)), 30_000);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      clearTimeout(timer);
      socket.off('data', onData);
      resolve(buffered.slice(0, end));
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed before a 101: ${buffered}`)));
  });
  if (!head.startsWith('HTTP/1.1 101')) throw new Error(`not upgraded: ${head}`);
  const route = /^x-peerscope-route:\s*(.*)$/im.exec(head)?.[1] ?? '';
  const watch = { socket, route, ended: false } as { socket: Socket; route: string; ended: boolean; closed: Promise<number> };
  socket.on('data', () => undefined); // frames: read and dropped
  socket.on('error', () => undefined);
  watch.closed = new Promise<number>((resolve) => {
    const done = () => {
      watch.ended = true;
      resolve(Date.now());
    };
    socket.once('end', done);
    socket.once('close', done);
  });
  return watch;
}
