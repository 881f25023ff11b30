// The columns kube-apiserver prints for the built-in resources a demo user reads with kubectl get
// (the column names, types and priorities of Kubernetes' internal printers), each with how its cells
// are read from a stored object. Priority 1 columns appear only with `-o wide`.
import type { KubeObject } from '../store/store.js';
import { ageOf } from './age.js';
import { isPlainObject } from './objects.js';

export interface ColumnDefinition {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

export interface Printer {
  readonly columns: readonly ColumnDefinition[];
  cells(o: KubeObject, now: number): unknown[];
}

function column(name: string, type: string, description: string, priority = 0): ColumnDefinition {
  return { name, type, format: name === 'Name' ? 'name' : '', description, priority };
}

const NAME = column('Name', 'string', 'Name must be unique within a namespace.');
const AGE = column('Age', 'string', 'The time since the object was created.');

type Json = Record<string, unknown>;

function field(o: unknown, ...path: string[]): unknown {
  let at: unknown = o;
  for (const key of path) at = isPlainObject(at) ? at[key] : undefined;
  return at;
}

function count(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  return isPlainObject(value) ? Object.keys(value).length : 0;
}

function num(value: unknown, fallback = 0): number {
  return typeof value === 'number' ? value : fallback;
}

function text(value: unknown, none = '<none>'): string {
  return typeof value === 'string' && value !== '' ? value : none;
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/** `k=v,k2=v2` of a label selector's matchLabels (and the plain map of a Service's selector). */
function selectorText(selector: unknown): string {
  const labels = isPlainObject(field(selector, 'matchLabels')) ? field(selector, 'matchLabels') : selector;
  if (!isPlainObject(labels) || Object.keys(labels).length === 0) return '<none>';
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${String(labels[k])}`)
    .join(',');
}

function containerCells(podSpec: unknown): [string, string] {
  const containers = list(field(podSpec, 'containers'));
  return [containers.map((c) => text(c.name, '')).join(','), containers.map((c) => text(c.image, '')).join(',')];
}

/** The STATUS of a pod: a container's waiting or terminated reason, else the pod's reason or phase. */
function podStatus(o: KubeObject): string {
  if (o.metadata.deletionTimestamp) return 'Terminating';
  for (const s of list(field(o, 'status', 'containerStatuses'))) {
    const reason = field(s, 'state', 'waiting', 'reason') ?? field(s, 'state', 'terminated', 'reason');
    if (typeof reason === 'string' && reason !== '') return reason;
  }
  return text(field(o, 'status', 'reason'), text(field(o, 'status', 'phase'), 'Pending'));
}

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

function podPrinter(): Printer {
  return {
    columns: [
      NAME,
      column('Ready', 'string', 'Ready containers of all containers.'),
      column('Status', 'string', 'The aggregate status of the containers.'),
      column('Restarts', 'string', 'Restarts of the containers.'),
      AGE,
      column('IP', 'string', 'The IP address of the pod.', 1),
      column('Node', 'string', 'The node the pod is bound to.', 1),
      column('Nominated Node', 'string', 'The node the scheduler nominated.', 1),
      column('Readiness Gates', 'string', 'Readiness gates met of all gates.', 1),
    ],
    cells: (o, now) => {
      const statuses = list(field(o, 'status', 'containerStatuses'));
      const gates = list(field(o, 'spec', 'readinessGates'));
      const conditions = list(field(o, 'status', 'conditions'));
      const gatesMet = gates.filter((g) => conditions.some((c) => c.type === g.conditionType && c.status === 'True')).length;
      return [
        o.metadata.name,
        `${statuses.filter((s) => s.ready === true).length}/${list(field(o, 'spec', 'containers')).length}`,
        podStatus(o),
        statuses.reduce((sum, s) => sum + num(s.restartCount), 0),
        ageOf(o.metadata.creationTimestamp, now),
        text(field(o, 'status', 'podIP')),
        text(field(o, 'spec', 'nodeName')),
        text(field(o, 'status', 'nominatedNodeName')),
        gates.length ? `${gatesMet}/${gates.length}` : '<none>',
      ];
    },
  };
}

function deploymentPrinter(): Printer {
  return {
    columns: [
      NAME,
      column('Ready', 'string', 'Ready pods of the desired replicas.'),
      column('Up-to-date', 'string', 'Pods with the current template.'),
      column('Available', 'string', 'Pods available to serve.'),
      AGE,
      column('Containers', 'string', 'Names of the containers in the template.', 1),
      column('Images', 'string', 'Images of the containers in the template.', 1),
      column('Selector', 'string', 'The label selector of the pods.', 1),
    ],
    cells: (o, now) => {
      const [containers, images] = containerCells(field(o, 'spec', 'template', 'spec'));
      return [
        o.metadata.name,
        `${num(field(o, 'status', 'readyReplicas'))}/${num(field(o, 'spec', 'replicas'), 1)}`,
        num(field(o, 'status', 'updatedReplicas')),
        num(field(o, 'status', 'availableReplicas')),
        ageOf(o.metadata.creationTimestamp, now),
        containers,
        images,
        selectorText(field(o, 'spec', 'selector')),
      ];
    },
  };
}

/** The printer of a group's resource, or undefined where kube-apiserver uses its default columns. */
export function printerFor(group: string, resource: string): Printer | undefined {
  return PRINTERS.get(`${group}/${resource}`);
}
