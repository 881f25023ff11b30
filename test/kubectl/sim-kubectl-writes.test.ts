// The writes and reads the demo invites, with the real kubectl against simulated apiservers of two
// releases, straight and through the port: `create namespace|configmap|secret|serviceaccount|
// priorityclass|deployment|service`, `run` (protobuf bodies), apply (client-side and server-side), label, annotate, patch,
// edit, and get printing kube-apiserver's columns (Table answers) and a `-o yaml` round trip.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadRelease } from '../../proxy-core/engine/releases/index.js';
import { portKubeconfig } from '../../proxy-core/hosts/index.js';
import { startSimCluster, type SimCluster } from '../../proxy-core/sim/index.js';
import { startBed, type Bed } from '../../proxy-core/test/harness.js';
import { hasKubectl, kubectlWithConfig, type KubectlResult } from './kubectl.js';

const RELEASES = ['v1.36-dev', 'v1.37-dev'];

const MANIFEST = (color: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: web
  namespace: demo
  labels: {app: web}
data:
  color: ${color}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: demo
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27}]
`;

const SERVER_SIDE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: web
  namespace: demo
data:
  size: large
`;

/** The header line of kubectl's table output, its columns split on runs of spaces. */
function header(out: string): string[] {
  return (out.split('\n')[0] ?? '').trim().split(/\s{2,}/);
}

/** The row of `name` in kubectl's table output, split into cells. */
function row(out: string, name: string): string[] {
  const line = out.split('\n').find((l) => l.split(/\s+/)[0] === name);
  return line ? line.trim().split(/\s{2,}/) : [];
}

type Target = { name: string; start(): Promise<{ kubeconfig: string; close(): Promise<void> }> };

const TARGETS: Target[] = [
  {
    name: 'straight to a simulated apiserver',
    async start() {
      const cluster: SimCluster = await startSimCluster({ releases: RELEASES.map((r) => loadRelease(r)) });
      return { kubeconfig: cluster.kubeconfig(), close: () => cluster.close() };
    },
  },
  {
    name: 'through the port',
    async start() {
      const bed: Bed = await startBed(
        { old: loadRelease(RELEASES[0] as string), new: loadRelease(RELEASES[1] as string) },
        {},
        { http: false },
      );
      return { kubeconfig: portKubeconfig(bed.url), close: () => bed.close() };
    },
  },
];

for (const target of TARGETS) {
  describe.skipIf(!hasKubectl)(`kubectl writes and reads ${target.name}`, () => {
    let stop: () => Promise<void>;
    let kubectl: ReturnType<typeof kubectlWithConfig>;
    const dir = mkdtempSync(join(tmpdir(), 'peerscope-kubectl-writes-'));
    const ok = (r: KubectlResult) => {
      expect(r.stderr.replace(/^Warning: .*\n/gm, ''), r.stdout).toBe('');
      expect(r.code).toBe(0);
      return r.stdout;
    };

    beforeAll(async () => {
      const started = await target.start();
      stop = started.close;
      kubectl = kubectlWithConfig(started.kubeconfig);
    });
    afterAll(() => stop?.());

    it('create namespace sends protobuf and get prints NAME STATUS AGE', async () => {
      expect(ok(await kubectl(['create', 'namespace', 'demo']))).toBe('namespace/demo created\n');
      const out = ok(await kubectl(['get', 'namespace', 'demo']));
      expect(header(out)).toEqual(['NAME', 'STATUS', 'AGE']);
      expect(row(out, 'demo').slice(0, 2)).toEqual(['demo', 'Active']);
      expect(row(out, 'demo')[2]).toMatch(/^\d+s$/);
    });

    it('create configmap --from-literal, get prints NAME DATA AGE', async () => {
      const created = ok(
        await kubectl(['create', 'configmap', 'settings', '-n', 'demo', '--from-literal=color=blue', '--from-literal=size=small']),
      );
      expect(created).toBe('configmap/settings created\n');
      const out = ok(await kubectl(['get', 'configmaps', '-n', 'demo']));
      expect(out.split('\n')[0]).toMatch(/^NAME\s+DATA\s+AGE$/);
      expect(row(out, 'settings').slice(0, 2)).toEqual(['settings', '2']);
      const json = JSON.parse(ok(await kubectl(['get', 'configmap', 'settings', '-n', 'demo', '-o', 'json'])));
      expect(json.data).toEqual({ color: 'blue', size: 'small' });
      expect(json.metadata).toMatchObject({ name: 'settings', namespace: 'demo' });
      expect(json.metadata.generateName).toBeUndefined();
    });

    it('create secret generic keeps the bytes, get prints NAME TYPE DATA AGE', async () => {
      expect(ok(await kubectl(['create', 'secret', 'generic', 'creds', '-n', 'demo', '--from-literal=user=admin']))).toBe(
        'secret/creds created\n',
      );
      const out = ok(await kubectl(['get', 'secrets', '-n', 'demo']));
      expect(header(out)).toEqual(['NAME', 'TYPE', 'DATA', 'AGE']);
      expect(row(out, 'creds').slice(0, 3)).toEqual(['creds', 'Opaque', '1']);
      const user = ok(await kubectl(['get', 'secret', 'creds', '-n', 'demo', '-o', 'jsonpath={.data.user}']));
      expect(Buffer.from(user, 'base64').toString()).toBe('admin');
    });

    it('create serviceaccount and priorityclass, each listed with its columns', async () => {
      ok(await kubectl(['create', 'serviceaccount', 'robot', '-n', 'demo']));
      const accounts = ok(await kubectl(['get', 'serviceaccounts', '-n', 'demo', 'robot']));
      expect(header(accounts)).toEqual(['NAME', 'SECRETS', 'AGE']);
      expect(row(accounts, 'robot').slice(0, 2)).toEqual(['robot', '0']);
      ok(await kubectl(['create', 'priorityclass', 'high', '--value=1000', '--description=demo']));
      const classes = ok(await kubectl(['get', 'priorityclass', 'high']));
      expect(header(classes)).toEqual(['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE', 'PREEMPTIONPOLICY']);
      expect(row(classes, 'high').slice(0, 3)).toEqual(['high', '1000', 'false']);
    });

    it('create deployment, run and create service send protobuf; get prints their columns', async () => {
      expect(ok(await kubectl(['create', 'deployment', 'api', '-n', 'demo', '--image=nginx:1.27', '--replicas=0', '--port=8080']))).toBe(
        'deployment.apps/api created\n',
      );
      const deployment = JSON.parse(ok(await kubectl(['get', 'deployment', 'api', '-n', 'demo', '-o', 'json'])));
      expect(deployment.spec).toMatchObject({ replicas: 0, selector: { matchLabels: { app: 'api' } } });
      expect(deployment.spec.template.spec.containers).toEqual([
        { name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 8080 }], resources: {} },
      ]);
      expect(ok(await kubectl(['run', 'once', '-n', 'demo', '--image=busybox:1.36', '--restart=Never', '--', 'true']))).toBe(
        'pod/once created\n',
      );
      const pods = ok(await kubectl(['get', 'pods', '-n', 'demo']));
      expect(header(pods)).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
      expect(row(pods, 'once').slice(0, 4)).toEqual(['once', '0/1', 'Pending', '0']);
      expect(ok(await kubectl(['create', 'service', 'clusterip', 'api', '-n', 'demo', '--tcp=80:8080']))).toBe('service/api created\n');
      const services = ok(await kubectl(['get', 'services', '-n', 'demo', 'api']));
      expect(header(services)).toEqual(['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']);
      expect(row(services, 'api').slice(0, 5)).toEqual(['api', 'ClusterIP', '10.96.0.2', '<none>', '80/TCP']);
      const service = JSON.parse(ok(await kubectl(['get', 'service', 'api', '-n', 'demo', '-o', 'json'])));
      expect(service.spec.ports).toEqual([{ name: '80-8080', port: 80, protocol: 'TCP', targetPort: 8080 }]);
    });

    it('create job, cronjob, role and rolebinding send protobuf; get prints their columns', async () => {
      ok(await kubectl(['create', 'job', 'once', '-n', 'demo', '--image=busybox:1.36', '--', 'true']));
      const jobs = ok(await kubectl(['get', 'jobs', '-n', 'demo']));
      expect(header(jobs)).toEqual(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
      expect(row(jobs, 'once').slice(0, 3)).toEqual(['once', 'Running', '0/1']);
      ok(await kubectl(['create', 'cronjob', 'nightly', '-n', 'demo', '--image=busybox:1.36', '--schedule=0 3 * * *', '--', 'true']));
      const cronjobs = ok(await kubectl(['get', 'cronjobs', '-n', 'demo']));
      expect(header(cronjobs)).toEqual(['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE']);
      expect(row(cronjobs, 'nightly').slice(0, 6)).toEqual(['nightly', '0 3 * * *', '<none>', 'False', '0', '<none>']);
      ok(await kubectl(['create', 'role', 'reader', '-n', 'demo', '--verb=get,list', '--resource=configmaps']));
      ok(await kubectl(['create', 'rolebinding', 'reader', '-n', 'demo', '--role=reader', '--serviceaccount=demo:robot']));
      const bindings = ok(await kubectl(['get', 'rolebindings', '-n', 'demo', '-o', 'wide']));
      expect(header(bindings)).toEqual(['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
      expect(row(bindings, 'reader')[1]).toBe('Role/reader');
      expect(row(bindings, 'reader').at(-1)).toBe('demo/robot');
      const role = JSON.parse(ok(await kubectl(['get', 'role', 'reader', '-n', 'demo', '-o', 'json'])));
      expect(role.rules).toEqual([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]);
    });

    it('apply -f creates, apply again configures, apply --server-side merges', async () => {
      writeFileSync(join(dir, 'web.yaml'), MANIFEST('blue'));
      const first = ok(await kubectl(['apply', '-f', join(dir, 'web.yaml')]));
      expect(first).toContain('configmap/web created');
      expect(first).toContain('deployment.apps/web created');
      writeFileSync(join(dir, 'web.yaml'), MANIFEST('green'));
      expect(ok(await kubectl(['apply', '-f', join(dir, 'web.yaml')]))).toContain('configmap/web configured');
      writeFileSync(join(dir, 'server-side.yaml'), SERVER_SIDE);
      expect(ok(await kubectl(['apply', '--server-side', '-f', join(dir, 'server-side.yaml')]))).toContain(
        'configmap/web serverside-applied',
      );
      const json = JSON.parse(ok(await kubectl(['get', 'configmap', 'web', '-n', 'demo', '-o', 'json'])));
      expect(json.data).toEqual({ color: 'green', size: 'large' });
      const deployments = ok(await kubectl(['get', 'deployments', '-n', 'demo']));
      expect(header(deployments)).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
      expect(row(deployments, 'web').slice(0, 4)).toEqual(['web', '0/2', '0', '0']);
      const wide = ok(await kubectl(['get', 'deployments', '-n', 'demo', '-o', 'wide']));
      expect(header(wide)).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
      expect(row(wide, 'web').slice(5)).toEqual(['web', 'nginx:1.27', 'app=web']);
    });

    it('label, annotate, patch (merge, strategic, json) and edit change the object', async () => {
      expect(ok(await kubectl(['label', 'configmap', 'settings', '-n', 'demo', 'tier=front']))).toBe('configmap/settings labeled\n');
      expect(ok(await kubectl(['annotate', 'configmap', 'settings', '-n', 'demo', 'owner=team-a']))).toBe('configmap/settings annotated\n');
      ok(await kubectl(['patch', 'configmap', 'settings', '-n', 'demo', '--type', 'merge', '-p', '{"data":{"size":"medium"}}']));
      ok(await kubectl(['patch', 'configmap', 'settings', '-n', 'demo', '-p', '{"data":{"shape":"round"}}']));
      ok(await kubectl(['patch', 'configmap', 'settings', '-n', 'demo', '--type', 'json', '-p', '[{"op":"remove","path":"/data/shape"}]']));
      const edited = await kubectl(['edit', 'configmap', 'settings', '-n', 'demo'], {
        KUBE_EDITOR: 'sed -i s/color:\\ blue/color:\\ red/',
      });
      expect(ok(edited)).toBe('configmap/settings edited\n');
      const json = JSON.parse(ok(await kubectl(['get', 'configmap', 'settings', '-n', 'demo', '-o', 'json'])));
      expect(json.metadata.labels).toEqual({ tier: 'front' });
      expect(json.metadata.annotations).toEqual({ owner: 'team-a' });
      expect(json.data).toEqual({ color: 'red', size: 'medium' });
    });

    it('server-side dry runs (create, apply, diff, delete) answer and keep nothing', async () => {
      const created = ok(await kubectl(['create', 'configmap', 'draft', '-n', 'demo', '--from-literal=a=b', '--dry-run=server']));
      expect(created).toBe('configmap/draft created (server dry run)\n');
      const missing = await kubectl(['get', 'configmap', 'draft', '-n', 'demo']);
      expect(missing.stderr).toContain('configmaps "draft" not found');
      writeFileSync(join(dir, 'web.yaml'), MANIFEST('purple'));
      const diff = await kubectl(['diff', '-f', join(dir, 'web.yaml')]);
      expect(diff.code, diff.stderr).toBe(1); // kubectl diff: 1 when there are differences
      expect(diff.stdout).toMatch(/^-\s+color: green$/m);
      expect(diff.stdout).toMatch(/^\+\s+color: purple$/m);
      expect(ok(await kubectl(['apply', '--dry-run=server', '-f', join(dir, 'web.yaml')]))).toContain(
        'configmap/web configured (server dry run)',
      );
      ok(await kubectl(['delete', 'configmap', 'web', '-n', 'demo', '--dry-run=server']));
      const json = JSON.parse(ok(await kubectl(['get', 'configmap', 'web', '-n', 'demo', '-o', 'json'])));
      expect(json.data.color).toBe('green');
    });

    it('describe reads the object and lists its events by field selector', async () => {
      const out = ok(await kubectl(['describe', 'configmap', 'settings', '-n', 'demo']));
      expect(out).toMatch(/^Name:\s+settings$/m);
      expect(out).toMatch(/^Events:\s+<none>$/m);
    });

    it('get -o yaml, replace -f with that yaml, get -o yaml reads the same object back', async () => {
      const before = ok(await kubectl(['get', 'configmap', 'settings', '-n', 'demo', '-o', 'yaml']));
      const edited = before.replace('size: medium', 'size: huge');
      expect(edited).not.toBe(before);
      writeFileSync(join(dir, 'settings.yaml'), edited);
      expect(ok(await kubectl(['replace', '-f', join(dir, 'settings.yaml')]))).toBe('configmap/settings replaced\n');
      const after = parseYaml(ok(await kubectl(['get', 'configmap', 'settings', '-n', 'demo', '-o', 'yaml'])));
      const was = parseYaml(before);
      expect(after.data).toEqual({ ...was.data, size: 'huge' });
      expect(after.metadata.uid).toBe(was.metadata.uid);
      expect(after.metadata.labels).toEqual(was.metadata.labels);
      expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(was.metadata.resourceVersion));
    });
  });
}
