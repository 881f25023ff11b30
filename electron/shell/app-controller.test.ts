import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import type { AuditRead, CoreClient, CoreEvent, DiscoveryMode, RoutingSnapshot } from '../../proxy-core/contract/index.js';
import { createSwitchingService } from '../../proxy-core/hosts/index.js';
import {
  createAppController,
  serverOfFile,
  type AppControllerDeps,
  type AppDialogs,
  type AppSession,
  type ClusterSourceChoice,
} from './app-controller.js';
import type { WebhookSetup } from './audit-webhook-setup.js';

/** The controller only carries snapshots; their content is the core's business (and its tests'). */
const sampleSnapshot = () => ({ kind: 'RoutingSnapshot', takenAt: '2026-11-23T10:00:00.000Z' }) as unknown as RoutingSnapshot;

/** A session whose service answers what the controller asks, and records it. */
const SERVERS = [
  { name: 'apiserver-a1', displayName: 'kube-old' },
  { name: 'apiserver-b2', displayName: 'kube-new' },
];

function fakeSession(label: string, portUrl: string) {
  let mode: DiscoveryMode = 'peer-aggregated';
  const listeners = new Set<(e: CoreEvent) => void>();
  const service = {
    getOverview: vi.fn(async () => ({
      discoveryMode: mode,
      servers: SERVERS,
      ...(session.read ? { cluster: { read: session.read } } : {}),
    })),
    cancelAuditRead: vi.fn(async () => {
      if (session.read) session.read = { ...session.read, state: 'cancelled' };
      return {};
    }),
    setDiscoveryMode: vi.fn(async ({ mode: m }: { mode: typeof mode }) => {
      mode = m;
      return { policy: 'round-robin', discoveryMode: m };
    }),
    takeSnapshot: vi.fn(async () => sampleSnapshot()),
    subscribe: (l: (e: CoreEvent) => void) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  } as unknown as CoreClient;
  const session: AppSession & { closed: boolean; read?: AuditRead; push(e: CoreEvent): void } = {
    service,
    label,
    portUrl,
    closed: false,
    close: vi.fn(async () => {
      session.closed = true;
    }),
    push: (e) => listeners.forEach((l) => l(e)),
  };
  return session;
}

function setup(overrides: Partial<AppControllerDeps> = {}, dialogOverrides: Partial<AppDialogs> = {}) {
  const service = createSwitchingService();
  const demos: ReturnType<typeof fakeSession>[] = [];
  const menus: MenuItemConstructorOptions[][] = [];
  const dialogs: AppDialogs = {
    openFile: vi.fn(async () => '/home/op/.kube/prod.yaml'),
    saveFile: vi.fn(async (o: { defaultPath: string }) => `/tmp/${o.defaultPath}`),
    chooseFolder: vi.fn(async () => '/home/op/webhook'),
    choose: vi.fn(async () => 1),
    error: vi.fn(),
    info: vi.fn(),
    ...dialogOverrides,
  };
  const cluster = fakeSession('context prod', 'http://127.0.0.1:8001');
  const deps: AppControllerDeps = {
    service,
    startDemo: vi.fn(async () => {
      const s = fakeSession('simulated cluster', `http://127.0.0.1:${8001 + demos.length}`);
      demos.push(s);
      return s;
    }),
    prepareCluster: vi.fn(async () => async () => cluster),
    prepareWebhook: vi.fn(async () => {
      throw new Error('not in this test');
    }),
    setProgress: vi.fn(),
    progressIntervalMs: 5,
    contextNames: vi.fn(() => ({ names: ['prod'], current: 'prod' })),
    readSnapshot: vi.fn(() => sampleSnapshot()),
    writeSnapshot: vi.fn(),
    dialogs,
    copyText: vi.fn(),
    setMenu: (t) => menus.push(t),
    platform: 'linux',
    devTools: false,
    ...overrides,
  };
  const controller = createAppController(deps);
  const events: CoreEvent[] = [];
  service.subscribe((e) => events.push(e));
  const label = (prefix: string) => flat(menus.at(-1) ?? []).find((i) => i.label?.startsWith(prefix));
  return { service, controller, deps, dialogs, demos, cluster, menus, events, label };
}

function flat(items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flat(i.submenu) : [])]);
}

/** Lets the action's promise chain settle. */
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('the desktop app controller', () => {
  it('starts on the simulated cluster and shows its port in the menu', async () => {
    const t = setup();
    await t.controller.start();
    expect(t.service.current()?.label).toBe('simulated cluster');
    expect(t.label('Local port:')?.label).toBe('Local port: http://127.0.0.1:8001');
    expect(t.events).toEqual([{ type: 'session', id: '1', label: 'simulated cluster' }]);
  });

  it('opens a kubeconfig: the running session gives up the port only once the cluster was found', async () => {
    const order: string[] = [];
    const t = setup({
      prepareCluster: vi.fn(async (file: string, context: string | undefined) => {
        order.push(`prepare ${file} ${context}`);
        return async () => {
          order.push('start cluster');
          return t.cluster;
        };
      }),
    });
    await t.controller.start();
    vi.mocked(t.demos[0]!.close).mockImplementation(async () => void order.push('close demo'));
    t.controller.actions.openKubeconfig();
    await vi.waitFor(() => expect(t.service.current()?.label).toBe('context prod'));
    expect(order).toEqual(['prepare /home/op/.kube/prod.yaml undefined', 'close demo', 'start cluster']);
    expect(t.events.at(-1)).toEqual({ type: 'session', id: '2', label: 'context prod' });
  });

  it('asks which context when the kubeconfig has several, and does nothing when cancelled', async () => {
    const t = setup({ contextNames: () => ({ names: ['dev', 'prod', 'staging'], current: 'prod' }) });
    await t.controller.start();
    vi.mocked(t.dialogs.choose).mockResolvedValueOnce(3); // the Cancel button
    t.controller.actions.openKubeconfig();
    await settle();
    expect(vi.mocked(t.dialogs.choose).mock.calls[0]![0]).toMatchObject({
      buttons: ['dev', 'prod', 'staging', 'Cancel'],
      defaultId: 1,
      cancelId: 3,
    });
    expect(t.deps.prepareCluster).not.toHaveBeenCalled();

    vi.mocked(t.dialogs.choose).mockResolvedValueOnce(2);
    t.controller.actions.openKubeconfig();
    await vi.waitFor(() => expect(t.deps.prepareCluster).toHaveBeenCalledWith('/home/op/.kube/prod.yaml', 'staging'));
  });

  it('a broken kubeconfig is reported with its error and the running session stays', async () => {
    const t = setup({
      prepareCluster: vi.fn(async () => {
        throw new Error('/home/op/.kube/prod.yaml:7:1: context "prod" names cluster "x", which is not defined');
      }),
    });
    await t.controller.start();
    t.controller.actions.openKubeconfig();
    await vi.waitFor(() =>
      expect(t.dialogs.error).toHaveBeenCalledWith('Could not open the kubeconfig', expect.stringContaining('prod.yaml:7:1')),
    );
    expect(t.demos[0]!.closed).toBe(false);
    expect(t.service.current()?.label).toBe('simulated cluster');
  });

  it('a cluster that fails to listen after the switch brings the simulated cluster back, and says why', async () => {
    const t = setup({
      prepareCluster: vi.fn(async () => async () => {
        throw new Error('cannot listen on 127.0.0.1:8001: EADDRINUSE');
      }),
    });
    await t.controller.start();
    t.controller.actions.openKubeconfig();
    await vi.waitFor(() => expect(t.demos).toHaveLength(2));
    await vi.waitFor(() => expect(t.service.current()).toBe(t.demos[1]));
    expect(t.dialogs.error).toHaveBeenCalledWith('Could not open the cluster', 'cannot listen on 127.0.0.1:8001: EADDRINUSE');
  });

  it('cancelling the file dialog changes nothing', async () => {
    const t = setup({}, { openFile: vi.fn(async () => undefined) });
    await t.controller.start();
    t.controller.actions.openKubeconfig();
    t.controller.actions.importSnapshot();
    await settle();
    expect(t.deps.prepareCluster).not.toHaveBeenCalled();
    expect(t.deps.readSnapshot).not.toHaveBeenCalled();
  });

  it('starts the simulated cluster again from the menu', async () => {
    const t = setup();
    await t.controller.start();
    t.controller.actions.startSimulatedCluster();
    await vi.waitFor(() => expect(t.service.current()).toBe(t.demos[1]));
    expect(t.demos[0]!.closed).toBe(true);
  });

  it('exports a snapshot to the file the operator picks', async () => {
    const t = setup();
    await t.controller.start();
    t.controller.actions.exportSnapshot();
    await vi.waitFor(() => expect(t.deps.writeSnapshot).toHaveBeenCalledTimes(1));
    const [file, snapshot] = vi.mocked(t.deps.writeSnapshot).mock.calls[0]!;
    expect(file).toMatch(/^\/tmp\/peerscope-snapshot-[\dT-]+Z\.json$/);
    expect(snapshot).toEqual(sampleSnapshot());
  });

  it('imports a snapshot: a valid one is handed to the window whole, a broken one is named in an error box', async () => {
    const t = setup({}, { openFile: vi.fn(async () => '/cases/CHG-1234/before-step-2.json') });
    await t.controller.start();
    t.controller.actions.importSnapshot();
    await vi.waitFor(() => expect(t.events.at(-1)?.type).toBe('snapshot-opened'));
    expect(t.events.at(-1)).toEqual({ type: 'snapshot-opened', file: 'before-step-2.json', snapshot: sampleSnapshot() });

    const count = t.events.length;
    vi.mocked(t.deps.readSnapshot).mockImplementationOnce((): RoutingSnapshot => {
      throw new Error('/cases/CHG-1234/before-step-2.json: /servers/0/name: expected string, received number');
    });
    t.controller.actions.importSnapshot();
    await vi.waitFor(() =>
      expect(t.dialogs.error).toHaveBeenCalledWith('Could not import the snapshot', expect.stringContaining('/servers/0/name')),
    );
    expect(t.events).toHaveLength(count);
  });

  it('toggles discovery mode, and the menu follows a change made elsewhere', async () => {
    const t = setup();
    await t.controller.start();
    expect(t.label('Peer-aggregated discovery')?.checked).toBe(true);
    t.controller.actions.toggleDiscoveryMode();
    await vi.waitFor(() => expect(t.label('Peer-aggregated discovery')?.checked).toBe(false));
    expect(t.demos[0]!.service.setDiscoveryMode).toHaveBeenCalledWith({ mode: 'nopeer' });
    t.demos[0]!.push({ type: 'settings', settings: { policy: 'round-robin', discoveryMode: 'peer-aggregated' } });
    expect(t.label('Peer-aggregated discovery')?.checked).toBe(true);
  });

  it('copies the local port address', async () => {
    const t = setup();
    await t.controller.start();
    t.controller.actions.copyPortAddress();
    expect(t.deps.copyText).toHaveBeenCalledWith('http://127.0.0.1:8001');
  });

  it('closes the running session when the app quits', async () => {
    const t = setup();
    await t.controller.start();
    await t.controller.close();
    expect(t.demos[0]!.closed).toBe(true);
  });

  describe('the cluster source from the menu', () => {
    const LOG = '/var/log/kube-old/audit-2026-11-25.log';

    /** On a kubeconfig cluster; each prepareCluster call gives a fresh session, kept in `clusters`. */
    async function onCluster(dialogOverrides: Partial<AppDialogs> = {}, overrides: Partial<AppControllerDeps> = {}) {
      const clusters: ReturnType<typeof fakeSession>[] = [];
      const t = setup(
        {
          prepareCluster: vi.fn(async (_kubeconfig: string, _context: string | undefined, source?: ClusterSourceChoice) => async () => {
            const s = fakeSession('context prod', 'http://127.0.0.1:8001');
            // A core reading logs once starts reading at once (a quarter read when first asked).
            if (source?.auditLogs && source.auditFollow === false)
              s.read = {
                files: [...source.auditLogs],
                follow: false,
                state: 'reading',
                bytesRead: 50,
                bytesTotal: 200,
                lines: 10,
                requests: 5,
              };
            clusters.push(s);
            return s;
          }),
          ...overrides,
        },
        dialogOverrides,
      );
      await t.controller.start();
      t.controller.actions.openKubeconfig();
      await vi.waitFor(() => expect(clusters).toHaveLength(1));
      await vi.waitFor(() => expect(t.service.current()).toBe(clusters[0]));
      vi.mocked(t.dialogs.openFile).mockResolvedValue(LOG);
      return { ...t, clusters };
    }

    it('on the simulated cluster, says why it needs a kubeconfig and changes nothing', async () => {
      const t = setup();
      await t.controller.start();
      t.controller.actions.openAuditLog();
      t.controller.actions.receiveAuditEvents();
      await settle();
      expect(vi.mocked(t.dialogs.info).mock.calls.map((c) => c[0])).toEqual(['Open audit log', 'Receive audit events']);
      expect(vi.mocked(t.dialogs.info).mock.calls[0]![1]).toMatch(/open its kubeconfig first/);
      expect(t.deps.prepareCluster).not.toHaveBeenCalled();
      expect(t.dialogs.openFile).not.toHaveBeenCalled();
    });

    it('opens an audit log read once: its server from the file name, a progress bar and Cancel while it reads', async () => {
      const t = await onCluster();
      vi.mocked(t.dialogs.choose).mockResolvedValueOnce(0); // Read it once
      t.controller.actions.openAuditLog();
      await vi.waitFor(() => expect(t.clusters).toHaveLength(2));
      const source: ClusterSourceChoice = { auditLogs: [{ server: 'apiserver-a1', file: LOG }], auditFollow: false };
      expect(t.deps.prepareCluster).toHaveBeenLastCalledWith('/home/op/.kube/prod.yaml', undefined, source);
      expect(vi.mocked(t.dialogs.choose).mock.calls.at(-1)![0].message).toBe(
        'Read audit-2026-11-25.log once (a log of the past, with a progress bar), or follow it as kube-old writes it?',
      );
      // The new session reads: a quarter done.
      const reading = t.clusters[1]!;
      await vi.waitFor(() => expect(t.deps.setProgress).toHaveBeenLastCalledWith({ fraction: 0.25 }));
      await vi.waitFor(() => expect(t.label('Cancel audit log read')?.enabled).toBe(true));
      (t.label('Cancel audit log read')?.click as () => void)();
      await vi.waitFor(() => expect(reading.service.cancelAuditRead).toHaveBeenCalledTimes(1));
      await vi.waitFor(() => expect(t.label('Cancel audit log read')?.enabled).toBe(false));
      expect(t.deps.setProgress).toHaveBeenLastCalledWith(undefined);
    });

    it('asks which server wrote a file whose name names none, and follows it when asked; Cancel changes nothing', async () => {
      const t = await onCluster();
      vi.mocked(t.dialogs.openFile).mockResolvedValue('/tmp/audit.log');
      vi.mocked(t.dialogs.choose).mockResolvedValueOnce(1).mockResolvedValueOnce(1); // kube-new, then Follow it
      t.controller.actions.openAuditLog();
      await vi.waitFor(() => expect(t.clusters).toHaveLength(2));
      expect(vi.mocked(t.dialogs.choose).mock.calls.at(-2)![0]).toMatchObject({
        message: 'Which apiserver wrote audit.log?',
        buttons: ['kube-old', 'kube-new', 'Cancel'],
      });
      expect(t.deps.prepareCluster).toHaveBeenLastCalledWith('/home/op/.kube/prod.yaml', undefined, {
        auditLogs: [{ server: 'apiserver-b2', file: '/tmp/audit.log' }],
        auditFollow: true,
      });
      vi.mocked(t.dialogs.choose).mockResolvedValueOnce(2); // Cancel the server question
      t.controller.actions.openAuditLog();
      await settle();
      await settle();
      expect(t.clusters).toHaveLength(2);
    });

    it('receives audit events: the files written per server, the session restarted with the receiver, the operator told where', async () => {
      const options = { host: '0.0.0.0', port: 9443 } as unknown as WebhookSetup['options'];
      const prepareWebhook = vi.fn(async (): Promise<WebhookSetup> => ({
        options,
        url: 'https://10.1.2.3:9443/',
        kubeconfigs: [
          { server: 'apiserver-a1', file: '/home/op/webhook/kube-old-audit-webhook.kubeconfig' },
          { server: 'apiserver-b2', file: '/home/op/webhook/kube-new-audit-webhook.kubeconfig' },
        ],
        written: [],
      }));
      const t = await onCluster({}, { prepareWebhook });
      vi.mocked(t.dialogs.choose).mockResolvedValueOnce(0).mockResolvedValueOnce(0); // every interface, generated certificate
      t.controller.actions.receiveAuditEvents();
      await vi.waitFor(() => expect(t.dialogs.info).toHaveBeenCalled());
      expect(prepareWebhook).toHaveBeenCalledWith({ host: '0.0.0.0', port: 9443, servers: SERVERS, folder: '/home/op/webhook' });
      expect(t.deps.prepareCluster).toHaveBeenLastCalledWith('/home/op/.kube/prod.yaml', undefined, { auditWebhook: options });
      expect(t.service.current()).toBe(t.clusters[1]);
      const [title, message] = vi.mocked(t.dialogs.info).mock.calls.at(-1)!;
      expect(title).toBe('Receive audit events');
      expect(message).toContain('Peerscope receives audit events on https://10.1.2.3:9443/');
      expect(message).toContain('kube-old: /home/op/webhook/kube-old-audit-webhook.kubeconfig');
    });

    it("uses the operator's certificate and key when chosen", async () => {
      const prepareWebhook = vi.fn(async (): Promise<WebhookSetup> => ({
        options: {} as WebhookSetup['options'],
        url: 'https://127.0.0.1:9443/',
        kubeconfigs: [],
        written: [],
      }));
      const t = await onCluster({}, { prepareWebhook });
      vi.mocked(t.dialogs.openFile).mockResolvedValueOnce('/etc/pki/hook.crt').mockResolvedValueOnce('/etc/pki/hook.key');
      vi.mocked(t.dialogs.choose).mockResolvedValueOnce(1).mockResolvedValueOnce(1); // this machine only, my certificate
      t.controller.actions.receiveAuditEvents();
      await vi.waitFor(() => expect(prepareWebhook).toHaveBeenCalled());
      expect(prepareWebhook).toHaveBeenCalledWith({
        host: '127.0.0.1',
        port: 9443,
        tls: { certFile: '/etc/pki/hook.crt', keyFile: '/etc/pki/hook.key' },
        servers: SERVERS,
        folder: '/home/op/webhook',
      });
    });
  });

  it('matches an audit log to the one server its file or folder name names, by identity or host name', () => {
    expect(serverOfFile('/var/log/kube-old/audit.log', SERVERS)).toBe('apiserver-a1');
    expect(serverOfFile('/logs/apiserver-b2-audit.log.gz', SERVERS)).toBe('apiserver-b2');
    expect(serverOfFile('/logs/audit.log', SERVERS)).toBeUndefined();
    // Both named: no guess.
    expect(serverOfFile('/logs/kube-old-and-kube-new.log', SERVERS)).toBeUndefined();
    // "kube-old" is not a word of "kube-older".
    expect(serverOfFile('/logs/kube-older.log', SERVERS)).toBeUndefined();
  });
});
