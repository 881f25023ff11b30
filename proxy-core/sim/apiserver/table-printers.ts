// The columns kube-apiserver prints for the built-in resources a demo user reads with kubectl get
// (the column names, types and priorities of Kubernetes' internal printers), each with how its cells
// are read from a stored object. Priority 1 columns appear only with `-o wide`.
import type { KubeObject } from '../store/store.js';
import { ageOf } from './age.js';
import { AGE, column, count, field, list, NAME, num, selectorText, text, type Printer } from './table-cells.js';
import { cronJobPrinter, deploymentPrinter, jobPrinter, podPrinter } from './table-printers-workloads.js';

export type { ColumnDefinition, Printer } from './table-cells.js';

function servicePorts(o: KubeObject): string {
  const ports = list(field(o, 'spec', 'ports')).map((p) => {
    const nodePort = typeof p.nodePort === 'number' ? `:${p.nodePort}` : '';
    return `${num(p.port)}${nodePort}/${text(p.protocol, 'TCP')}`;
  });
  return ports.length ? ports.join(',') : '<none>';
}

function serviceExternalIp(o: KubeObject): string {
  const external = field(o, 'spec', 'externalIPs');
  if (Array.isArray(external) && external.length) return external.join(',');
  if (field(o, 'spec', 'type') === 'LoadBalancer') {
    const ingress = list(field(o, 'status', 'loadBalancer', 'ingress')).map((i) => text(i.ip, text(i.hostname, '')));
    return ingress.length ? ingress.join(',') : '<pending>';
  }
  if (field(o, 'spec', 'type') === 'ExternalName') return text(field(o, 'spec', 'externalName'));
  return '<none>';
}

/** Role bindings: the role and, wide, the users, groups and service accounts bound. */
function bindingPrinter(): Printer {
  const subjects = (o: KubeObject, kind: string) =>
    list(o.subjects)
      .filter((s) => s.kind === kind)
      .map((s) => (kind === 'ServiceAccount' ? `${text(s.namespace, '')}/${text(s.name, '')}` : text(s.name, '')))
      .join(', ');
  return {
    columns: [
      NAME,
      column('Role', 'string', 'The role bound.'),
      AGE,
      column('Users', 'string', 'Users bound.', 1),
      column('Groups', 'string', 'Groups bound.', 1),
      column('ServiceAccounts', 'string', 'Service accounts bound.', 1),
    ],
    cells: (o, now) => [
      o.metadata.name,
      `${text(field(o, 'roleRef', 'kind'), '')}/${text(field(o, 'roleRef', 'name'), '')}`,
      ageOf(o.metadata.creationTimestamp, now),
      subjects(o, 'User'),
      subjects(o, 'Group'),
      subjects(o, 'ServiceAccount'),
    ],
  };
}

const PRINTERS: ReadonlyMap<string, Printer> = new Map<string, Printer>([
  [
    '/namespaces',
    {
      columns: [NAME, column('Status', 'string', 'The status of the namespace.'), AGE],
      cells: (o, now) => [o.metadata.name, text(field(o, 'status', 'phase'), ''), ageOf(o.metadata.creationTimestamp, now)],
    },
  ],
  [
    '/configmaps',
    {
      columns: [NAME, column('Data', 'string', 'The number of keys in data and binaryData.'), AGE],
      cells: (o, now) => [o.metadata.name, count(o.data) + count(o.binaryData), ageOf(o.metadata.creationTimestamp, now)],
    },
  ],
  [
    '/secrets',
    {
      columns: [NAME, column('Type', 'string', 'The type of the secret.'), column('Data', 'string', 'The number of keys in data.'), AGE],
      cells: (o, now) => [o.metadata.name, text(o.type, ''), count(o.data), ageOf(o.metadata.creationTimestamp, now)],
    },
  ],
  [
    '/serviceaccounts',
    {
      columns: [NAME, column('Secrets', 'string', 'The number of secrets listed.'), AGE],
      cells: (o, now) => [o.metadata.name, count(o.secrets), ageOf(o.metadata.creationTimestamp, now)],
    },
  ],
  [
    '/services',
    {
      columns: [
        NAME,
        column('Type', 'string', 'How the service is exposed.'),
        column('Cluster-IP', 'string', 'The IP address of the service in the cluster.'),
        column('External-IP', 'string', 'The addresses outside the cluster.'),
        column('Port(s)', 'string', 'The ports the service exposes.'),
        AGE,
        column('Selector', 'string', 'The labels of the pods the service routes to.', 1),
      ],
      cells: (o, now) => [
        o.metadata.name,
        text(field(o, 'spec', 'type'), 'ClusterIP'),
        text(field(o, 'spec', 'clusterIP')),
        serviceExternalIp(o),
        servicePorts(o),
        ageOf(o.metadata.creationTimestamp, now),
        selectorText(field(o, 'spec', 'selector')),
      ],
    },
  ],
  ['/pods', podPrinter()],
  ['apps/deployments', deploymentPrinter()],
  ['batch/jobs', jobPrinter()],
  ['batch/cronjobs', cronJobPrinter()],
  ['rbac.authorization.k8s.io/rolebindings', bindingPrinter()],
  ['rbac.authorization.k8s.io/clusterrolebindings', bindingPrinter()],
  [
    'scheduling.k8s.io/priorityclasses',
    {
      columns: [
        NAME,
        column('Value', 'integer', 'The priority of pods of this class.'),
        column('Global-Default', 'boolean', 'Whether pods without a class get this one.'),
        AGE,
        column('PreemptionPolicy', 'string', 'Whether pods of this class preempt lower-priority pods.'),
      ],
      cells: (o, now) => [
        o.metadata.name,
        num(o.value),
        o.globalDefault === true,
        ageOf(o.metadata.creationTimestamp, now),
        // kube-apiserver defaults the policy on create; the simulator does not, so the default is shown.
        text(o.preemptionPolicy, 'PreemptLowerPriority'),
      ],
    },
  ],
]);

/** The printer of a group's resource, or undefined where kube-apiserver uses its default columns. */
export function printerFor(group: string, resource: string): Printer | undefined {
  return PRINTERS.get(`${group}/${resource}`);
}
