// Real kube-apiservers of two releases, each writing an audit log (policy level Metadata), their own
// Mixed Version Proxy off (the gate on, no --peer-ca-file, as kubeadm leaves it) and beta APIs on
// (api/beta=true), so that the newer release serves what the older does not and the older serves
// betas the newer removed. Several clients send requests STRAIGHT to the servers, not through the
// port: what only the newer serves sent to the older (false 404s), what the newer removed, every
// listable API both serve (deprecated ones among them), and kubectl. Peerscope must count exactly
// that from the audit logs (`peerscope audit`), show the deprecated APIs and request counts from each
// server's /metrics (`servers`, `serve`'s /.peerscope/metrics), and name the client the upgrade to the
// newer release breaks (`report --audit-log … --to`). The servers also post the same events to
// `serve`'s audit webhook receiver (each named by its own bearer token), which must count the same
// false 404s as the files. Which GVRs and which APIs are deprecated is read from the real servers
// (their discovery, their Warning headers), not assumed.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditReportSchema, type AuditReport } from '../../proxy-core/contract/audit.js';
import { impactReportSchema } from '../../proxy-core/contract/impact.js';
import { serverMetricsSchema, type ServerMetrics } from '../../proxy-core/contract/server-metrics.js';
import { kubeBinaries, skipKube } from './binaries.js';
import { createCertificateAuthority, issueServerCertificate } from '../../proxy-core/engine/tls/certs.js';
import { serverIps, startControlPlane, type ControlPlane } from './control-plane.js';
import { kubectl, peerscope, startServe, type Serve } from './peerscope-cli.js';
import { portFreeOnAll, waitFor } from './processes.js';
import { ensureTestNetwork, HOST_IP } from './test-network.js';
import { ownDiscovery, servedGvrs, type ServedGvr } from './served-gvrs.js';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
`;

/** The clients that send plain HTTPS requests (the admin token; TLS verified against the test CA). */
const CERT_ROTATOR = 'cert-rotator/v0.3.1';
const IPAM = 'ipam-controller/v0.4.0';
const INVENTORY = 'api-inventory/v1.0';
const TOKEN_USER = 'token-admin';
/** kubectl authenticates with the admin client certificate. */
const CERT_USER = 'kubernetes-admin';

interface Sent {
  /** Requests per client user agent (kubectl: "kubectl"), per server host. */
  readonly requests: Map<string, Map<string, number>>;
  /** GVR keys whose answers carried a deprecation warning, per server host. */
  readonly deprecated: Map<string, Set<string>>;
}

interface ServerRow {
  name: string;
  url: string;
  apiserverMetrics?: unknown;
}

describe.skipIf(skipKube())("the whole cluster's traffic: real servers' audit logs and /metrics", () => {
  let cp: ControlPlane;
  let dir: string;
  let names: Map<string, string>;
  const logs = new Map<string, string>();
  /** Only the newer release serves it (listable). */
  let newOnly: ServedGvr;
  /** Only the older release serves it: the upgrade to the newer removes it. */
  let removed: ServedGvr;
  let kubectlUserAgent = '';
  let deprecatedBefore: Map<string, ServerMetrics>;
  /** serve with the audit webhook receiver, from before the traffic to the end. */
  let serve: Serve;
  const sent: Sent = { requests: new Map(), deprecated: new Map() };
  const older = kubeBinaries?.older ?? '';
  const newer = kubeBinaries?.newer ?? '';

  const count = (client: string, host: string, n = 1) => {
    const perHost = sent.requests.get(client) ?? new Map<string, number>();
    perHost.set(host, (perHost.get(host) ?? 0) + n);
    sent.requests.set(client, perHost);
  };
  const auditArgs = (hosts: readonly string[]) => hosts.flatMap((h) => ['--audit-log', `${names.get(h)}=${logs.get(h)}`]);
  const serversJson = async () => {
    const r = await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-old'), '--output', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = (JSON.parse(r.stdout) as { servers: ServerRow[] }).servers;
    return new Map(rows.map((row) => [row.name, serverMetricsSchema.parse(row.apiserverMetrics)]));
  };

  /** One HTTPS request straight to a server as `client`; the deprecation warning noted. */
  async function send(client: string, host: string, gvr: ServedGvr): Promise<number> {
    const res = await cp.call(host, gvr.path, { headers: { 'user-agent': client } });
    count(client, host);
    const warning = [res.headers.warning ?? []].flat().join('\n');
    if (/ is deprecated/.test(warning)) {
      const set = sent.deprecated.get(host) ?? new Set<string>();
      set.add(gvr.key);
      sent.deprecated.set(host, set);
    }
    return res.status;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kube-cluster-traffic-'));
    const policyFile = join(dir, 'audit-policy.yaml');
    writeFileSync(policyFile, POLICY);
    for (const host of ['kube-old', 'kube-new']) logs.set(host, join(dir, `${host}-audit.log`));
    // The webhook receiver's address, certificate (the operator's: a CA of the test's own) and a token per
    // server must be in the servers' webhook kubeconfig before they start; serve starts once they run.
    ensureTestNetwork(serverIps(2));
    const webhookPort = await portFreeOnAll([HOST_IP]);
    const webhookCa = await createCertificateAuthority('audit-webhook-ca');
    const serving = await issueServerCertificate(webhookCa, { commonName: 'peerscope-audit-webhook', hosts: [HOST_IP] });
    const files = (name: string, text: string) => {
      writeFileSync(join(dir, name), text, { mode: 0o600 });
      return join(dir, name);
    };
    const [caFile, certFile, keyFile] = [
      files('webhook-ca.crt', webhookCa.cert),
      files('webhook.crt', serving.cert),
      files('webhook.key', serving.key),
    ];
    const tokenFiles = new Map<string, string>();
    const webhookConfig = (host: string) => {
      const token = randomBytes(16).toString('hex');
      tokenFiles.set(host, files(`${host}-webhook.token`, token));
      return files(
        `${host}-webhook.kubeconfig`,
        `apiVersion: v1
kind: Config
clusters:
- name: peerscope
  cluster: {server: "https://${HOST_IP}:${webhookPort}/", certificate-authority: ${caFile}}
users:
- name: ${host}
  user: {token: ${token}}
contexts:
- name: webhook
  context: {cluster: peerscope, user: ${host}}
current-context: webhook
`,
      );
    };
    const audit = (host: string) => ({ policyFile, logFile: logs.get(host) as string, webhookConfigFile: webhookConfig(host) });
    cp = await startControlPlane({
      servers: [
        { host: 'kube-old', release: older, mvp: 'no-peer-ca', runtimeConfig: 'api/beta=true', audit: audit('kube-old') },
        { host: 'kube-new', release: newer, mvp: 'no-peer-ca', runtimeConfig: 'api/beta=true', audit: audit('kube-new') },
      ],
    });
    names = await cp.leaseNames();
    const [oldServes, newServes] = [await servedGvrs(cp, 'kube-old'), await servedGvrs(cp, 'kube-new')];
    const listable = (a: Map<string, ServedGvr>, b: Map<string, ServedGvr>) =>
      [...a.values()].filter((g) => !b.has(g.key) && g.verbs.includes('list')).sort((x, y) => x.key.localeCompare(y.key));
    const onlyNew = listable(newServes, oldServes);
    const onlyOld = listable(oldServes, newServes);
    console.log(
      `only ${newer} serves: ${onlyNew.map((g) => g.key).join(', ')}; only ${older} serves: ${onlyOld.map((g) => g.key).join(', ')}`,
    );
    if (!onlyNew[0] || !onlyOld[0]) throw new Error('the two releases serve the same listable GVRs: nothing to test');
    newOnly = onlyNew[0];
    removed = onlyOld[0];
    deprecatedBefore = await serversJson();
    serve = await startServe([
      '--kubeconfig',
      cp.kubeconfig('kube-old'),
      '--server-metrics',
      '1',
      '--audit-webhook-listen',
      `${HOST_IP}:${webhookPort}`,
      '--audit-webhook-cert',
      certFile,
      '--audit-webhook-key',
      keyFile,
      ...['kube-old', 'kube-new'].flatMap((h) => ['--audit-webhook-token', `${names.get(h)}=${tokenFiles.get(h)}`]),
    ]);
    // The servers' first batches, posted before the receiver listened, were dropped after their retries.
    await waitFor(
      'a batch from each server at the audit webhook receiver',
      async () => {
        const body = await (await fetch(`${serve.url}/.peerscope/metrics`)).text();
        // Each server by its host name, its lease name beside it.
        return [...names].every(([host, id]) =>
          body.includes(`peerscope_cluster_webhook_batches_total{server="${host}",server_id="${id}"}`),
        )
          ? true
          : undefined;
      },
      30_000,
    );

    // cert-rotator asks the older server for what only the newer serves: each a false 404.
    for (let i = 0; i < 5; i++) expect(await send(CERT_ROTATOR, 'kube-old', newOnly)).toBe(404);
    for (let i = 0; i < 2; i++) expect(await send(CERT_ROTATOR, 'kube-new', newOnly)).toBe(200);
    // ipam-controller lists what the newer release removed: fine on the older, a false 404 on the newer.
    for (let i = 0; i < 4; i++) expect(await send(IPAM, 'kube-old', removed)).toBe(200);
    expect(await send(IPAM, 'kube-new', removed)).toBe(404);
    // api-inventory lists every API both serve, on both: the deprecated ones answer with a warning.
    const both = [...oldServes.values()].filter((g) => newServes.has(g.key) && g.verbs.includes('list') && !g.resource.includes('/'));
    for (const host of ['kube-old', 'kube-new']) for (const g of both) expect(await send(INVENTORY, host, g)).toBe(200);
    // kubectl: raw GETs (no discovery first), the newer-only GVR from the older server and config maps from the newer.
    // /usr/bin/kubectl here is a dispatcher that first asks GET /version under a user agent of its own
    // (kubectl-dispatcher/…): another client in the logs, with non-resource requests only.
    const cache = join(dir, 'kubectl-cache');
    for (let i = 0; i < 3; i++) {
      const r = await kubectl({ kubeconfig: cp.kubeconfig('kube-old') }, cache)(['get', '--raw', newOnly.path]);
      expect(r.stderr).toMatch(/NotFound|not found/i);
      count('kubectl', 'kube-old');
    }
    for (let i = 0; i < 2; i++) {
      const r = await kubectl({ kubeconfig: cp.kubeconfig('kube-new') }, cache)(['get', '--raw', '/api/v1/namespaces/default/configmaps']);
      expect(r.code, r.stderr).toBe(0);
      count('kubectl', 'kube-new');
    }
    const deprecated = [...(sent.deprecated.get('kube-new') ?? [])].sort();
    console.log(
      `sent straight to the servers: ${[...sent.requests].map(([c, h]) => `${c} ${[...h].map(([s, n]) => `${s}=${n}`).join(' ')}`).join('; ')}; deprecated APIs answered with a warning: ${deprecated.join(', ')}`,
    );
    // Each final event is written once its request ends: wait until every one sent is in the logs.
    const total = [...sent.requests.values()].flatMap((h) => [...h.values()]).reduce((a, b) => a + b, 0);
    await waitFor(
      `all ${total} requests in the audit logs`,
      async () => {
        const lines = [...logs.values()].flatMap((f) => readFileSync(f, 'utf8').split('\n'));
        const done = lines.filter(
          (l) => l.includes('"ResponseComplete"') && /"userAgent":"(cert-rotator|ipam-controller|api-inventory|kubectl)\//.test(l),
        );
        const agent = /"userAgent":"(kubectl\/[^"]*)"/.exec(done.find((l) => l.includes('"userAgent":"kubectl/')) ?? '');
        if (agent) kubectlUserAgent = agent[1] as string;
        return done.length >= total ? true : undefined;
      },
      30_000,
    );
  });
  afterAll(async () => {
    await serve?.stop();
    await cp?.close();
    // The audit logs, tokens and keys go with the control plane's own directory (kept on request, as it is).
    if (dir && !process.env.PEERSCOPE_KUBE_KEEP) rmSync(dir, { recursive: true, force: true });
  });

  /** The rows of my clients in an audit report: user agent → [requests, false 404s, local, codes]. */
  function clientRows(report: AuditReport) {
    const mine = new Map([
      [CERT_ROTATOR, TOKEN_USER],
      [IPAM, TOKEN_USER],
      [INVENTORY, TOKEN_USER],
      [kubectlUserAgent, CERT_USER],
    ]);
    return new Map(
      report.perClient
        .filter((c) => mine.get(c.userAgent) === c.user)
        .map((c) => [c.userAgent.startsWith('kubectl/') ? 'kubectl' : c.userAgent, c] as const),
    );
  }

  it('peerscope audit counts exactly what each client sent, per server, and the false 404s by client, server and GVR', async () => {
    const run = await peerscope([
      'audit',
      ...auditArgs(['kube-old', 'kube-new']),
      '--kubeconfig',
      cp.kubeconfig('kube-old'),
      '--output',
      'json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = auditReportSchema.parse(JSON.parse(run.stdout));
    expect(report.problemCount).toBe(0);
    expect(report.judgedAgainst.kind).toBe('kubeconfig');
    const rows = clientRows(report);
    const sum = (client: string) => [...(sent.requests.get(client)?.values() ?? [])].reduce((a, b) => a + b, 0);
    for (const client of [CERT_ROTATOR, IPAM, INVENTORY, 'kubectl']) expect(rows.get(client)?.requests, client).toBe(sum(client));
    expect(rows.get(CERT_ROTATOR)?.outcomes).toMatchObject({ 'false-404': 5, local: 2 });
    expect(rows.get(IPAM)?.outcomes).toMatchObject({ 'false-404': 1, local: 4 });
    expect(rows.get('kubectl')?.outcomes).toMatchObject({ 'false-404': 3, local: 2 });
    expect(rows.get(INVENTORY)?.outcomes).toMatchObject({ local: sum(INVENTORY), 'false-404': 0 });
    const gvr = (g: ServedGvr) => ({ group: g.group, version: g.version, resource: g.resource });
    const [oldName, newName] = [names.get('kube-old'), names.get('kube-new')];
    expect(
      (report.false404s ?? []).map((f) => ({
        userAgent: f.userAgent,
        user: f.user,
        server: f.server,
        gvr: f.gvr,
        servedBy: f.servedBy,
        count: f.count,
      })),
    ).toEqual([
      { userAgent: CERT_ROTATOR, user: TOKEN_USER, server: oldName, gvr: gvr(newOnly), servedBy: [newName], count: 5 },
      { userAgent: kubectlUserAgent, user: CERT_USER, server: oldName, gvr: gvr(newOnly), servedBy: [newName], count: 3 },
      { userAgent: IPAM, user: TOKEN_USER, server: newName, gvr: gvr(removed), servedBy: [oldName], count: 1 },
    ]);
    // Per server: each log alone gives each client exactly what it sent to that server.
    for (const host of ['kube-old', 'kube-new']) {
      const one = await peerscope(['audit', ...auditArgs([host]), '--kubeconfig', cp.kubeconfig('kube-old'), '--output', 'json']);
      expect(one.code, one.stderr).toBe(0);
      const perClient = clientRows(auditReportSchema.parse(JSON.parse(one.stdout)));
      for (const [client, perHost] of sent.requests)
        expect(perClient.get(client)?.requests ?? 0, `${client} on ${host}`).toBe(perHost.get(host) ?? 0);
    }
    const text = await peerscope([
      'audit',
      ...auditArgs(['kube-old', 'kube-new']),
      '--kubeconfig',
      cp.kubeconfig('kube-old'),
      '--top',
      '8',
    ]);
    console.log(text.stdout);
    expect(text.stdout).toMatch(/False 404s: 9 request\(s\)/);
  });

  it("servers reads from each server's /metrics the deprecated APIs requested and the requests per GVR; a false 404 is not counted there", async () => {
    const after = await serversJson();
    for (const host of ['kube-old', 'kube-new']) {
      const name = names.get(host) as string;
      const m = after.get(name);
      expect(m?.state, host).toBe('read');
      const key = (d: { group: string; version: string; resource: string }) => `${d.group}/${d.version}/${d.resource}`;
      const now = new Set((m?.deprecatedApis ?? []).map(key));
      const before = new Set((deprecatedBefore.get(name)?.deprecatedApis ?? []).map(key));
      const warned = sent.deprecated.get(host) ?? new Set<string>();
      console.log(
        `${host}: deprecated APIs in /metrics before the traffic: ${[...before].join(', ') || 'none'}; after: ${[...now].join(', ')}`,
      );
      expect(warned.size, `${host} answered no request with a deprecation warning`).toBeGreaterThan(0);
      // Every API that warned is in use now; whatever appeared with the traffic is one that warned.
      for (const k of warned) expect(now.has(k), `${k} on ${host}`).toBe(true);
      for (const k of now) if (!before.has(k)) expect(warned.has(k), `${k} appeared on ${host} without a warning`).toBe(true);
    }
    // What the newer release removed is deprecated on the older, which names the release that removes it.
    const [major, minor] = /^v(\d+)\.(\d+)\./.exec(newer)?.slice(1) ?? [];
    expect(
      after
        .get(names.get('kube-old') as string)
        ?.deprecatedApis?.find((d) => d.group === removed.group && d.version === removed.version && d.resource === removed.resource),
    ).toMatchObject({ removedRelease: `${major}.${minor}` });
    const lists = (host: string, g: ServedGvr) =>
      after
        .get(names.get(host) as string)
        ?.requests?.find(
          (r) => r.group === g.group && r.version === g.version && r.resource === g.resource && r.verb === 'LIST' && !r.subresource,
        );
    expect(lists('kube-new', newOnly)).toMatchObject({ requests: 2, serverErrors: 0, notFound: 0, requestRate: null });
    expect(lists('kube-old', removed)).toMatchObject({ requests: 4 });
    // The eight false 404s the older server answered are not in its apiserver_request_total.
    expect(lists('kube-old', newOnly)).toBeUndefined();
    const text = await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-old')]);
    console.log(text.stdout);
    expect(text.stdout).toMatch(/REQUESTS\s+5XX\s+404\s+DEPRECATED APIS/);
    expect(text.stdout).toContain("kube-new's /metrics counts");
  });

  it('serve shows the same per server in /.peerscope/metrics', async () => {
    const newName = names.get('kube-new') as string;
    const g = newOnly;
    const lists = `peerscope_apiserver_requests_total{server="kube-new",server_id="${newName}",group="${g.group}",version="${g.version}",resource="${g.resource}",subresource="",verb="LIST"}`;
    // serve reads each server's /metrics every second: until a read after the traffic, the count is older.
    const text = await waitFor(
      'a read of both servers after the traffic in /.peerscope/metrics',
      async () => {
        const body = await (await fetch(`${serve.url}/.peerscope/metrics`)).text();
        const read = [...names].every(([host, id]) =>
          body.includes(`peerscope_apiserver_metrics_read{server="${host}",server_id="${id}",state="read"} 1`),
        );
        return read && body.includes(lists) ? body : undefined;
      },
      30_000,
    );
    expect(text).toContain(`${lists} 2`);
    for (const k of sent.deprecated.get('kube-new') ?? []) {
      const [group, version, resource] = k.split('/');
      expect(text).toMatch(
        new RegExp(
          `peerscope_apiserver_requested_deprecated_apis\\{server="kube-new",server_id="${newName}",group="${group}",version="${version}",resource="${resource}",subresource="",removed_release="[^"]*"\\} 1`,
        ),
      );
    }
  });

  it('the audit webhook receiver counts the same false 404s as the files, each server named by its token; nothing refused', async () => {
    const series = (host: string, g: ServedGvr) =>
      `peerscope_cluster_false_404_total{server="${host}",server_id="${names.get(host)}",group="${g.group}",version="${g.version}",resource="${g.resource}"}`;
    // Batches leave a server at most 1 s apart.
    const text = await waitFor(
      'the false 404s posted to the webhook',
      async () => {
        const body = await (await fetch(`${serve.url}/.peerscope/metrics`)).text();
        return body.includes(`${series('kube-old', newOnly)} 8`) && body.includes(`${series('kube-new', removed)} 1`) ? body : undefined;
      },
      30_000,
    );
    const false404Lines = text.split('\n').filter((l) => l.startsWith('peerscope_cluster_false_404_total{'));
    console.log(false404Lines.join('\n'));
    // Series appear in the order their first event arrived, which the two servers' batches do not fix.
    expect(false404Lines.sort()).toEqual([`${series('kube-old', newOnly)} 8`, `${series('kube-new', removed)} 1`].sort());
    expect(text).not.toContain('peerscope_cluster_webhook_problems_total{');
    expect(serve.stderr()).toContain(`peerscope: receiving audit events on https://${HOST_IP}:`);
  });

  it(`report --audit-log … --to the newer release names the client it breaks`, async () => {
    const { api, apis } = await ownDiscovery(cp, 'kube-new');
    writeFileSync(join(dir, 'new-api.json'), api);
    writeFileSync(join(dir, 'new-apis.json'), apis);
    const releaseFiles = [
      '--release-file',
      `${newer}=${join(dir, 'new-api.json')}`,
      '--release-file',
      `${newer}=${join(dir, 'new-apis.json')}`,
    ];
    const args = [
      'report',
      ...auditArgs(['kube-old', 'kube-new']),
      '--kubeconfig',
      cp.kubeconfig('kube-old'),
      ...releaseFiles,
      '--to',
      newer,
    ];
    const json = await peerscope([...args, '--output', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const report = impactReportSchema.parse(JSON.parse(json.stdout));
    expect(report.source).toBe('audit-logs');
    expect(report.target.release).toBe(newer);
    const removedFindings = report.findings.filter((f) => f.impact === 'removed');
    expect(
      removedFindings.map((f) => ({ client: f.client.name, identity: f.client.identity, gvr: `${f.group}/${f.version}/${f.resource}` })),
    ).toEqual([{ client: 'ipam-controller', identity: TOKEN_USER, gvr: removed.key }]);
    const text = await peerscope(args);
    console.log(text.stdout);
    expect(text.stdout).toContain('ipam-controller');
  });

  // Last: it stops the newer server.
  it("a server stopped while its peer's audit log is read: the false 404s from before are still counted, judged from its last known discovery, and the report says so", async () => {
    const newName = names.get('kube-new') as string;
    const newUrl = cp.server('kube-new').url;
    await cp.stop('kube-new');
    // Found no more through the kubeconfig (it does not answer); the operator names it, as it still is in the cluster.
    const args = [
      'audit',
      ...auditArgs(['kube-old', 'kube-new']),
      '--kubeconfig',
      cp.kubeconfig('kube-old'),
      '--server',
      `${newName}=${newUrl}`,
    ];
    const run = await peerscope([...args, '--output', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const report = auditReportSchema.parse(JSON.parse(run.stdout));
    console.log(`judged against: ${JSON.stringify(report.judgedAgainst.servers)}; stand-ins: ${JSON.stringify(report.standIns)}`);
    // Its discovery cannot be read now; its own requests in its log name its release.
    expect(report.judgedAgainst.servers.find((s) => s.name === newName)?.gvrs).toBeNull();
    expect(report.standIns).toEqual([expect.objectContaining({ server: newName, from: 'log' })]);
    const rows = clientRows(report);
    expect(rows.get(CERT_ROTATOR)?.outcomes).toMatchObject({ 'false-404': 5, notfound: 0 });
    expect(rows.get(IPAM)?.outcomes).toMatchObject({ 'false-404': 1, notfound: 0 });
    const text = await peerscope(args);
    console.log(text.stdout);
    expect(text.stdout).toContain('judged from last known discovery');
  });
});
