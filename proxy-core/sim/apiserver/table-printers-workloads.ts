// The columns kube-apiserver prints for workloads (pods, deployments, jobs, cron jobs) and how each
// cell is read from a stored object.
import type { KubeObject } from '../store/store.js';
import { ageOf } from './age.js';
import { AGE, column, containerCells, field, list, NAME, num, selectorText, text, type Printer } from './table-cells.js';

/** The wide columns of every workload that has a pod template: its containers, their images and the pods' selector. */
const TEMPLATE_COLUMNS = [
  column('Containers', 'string', 'Names of the containers in the template.', 1),
  column('Images', 'string', 'Images of the containers in the template.', 1),
  column('Selector', 'string', 'The label selector of the pods.', 1),
];

/** The cells of TEMPLATE_COLUMNS for a pod template (`spec`) and the selector beside it. */
function templateCells(podSpec: unknown, selector: unknown): [string, string, string] {
  const [containers, images] = containerCells(podSpec);
  return [containers, images, selectorText(selector)];
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

export function podPrinter(): Printer {
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

export function deploymentPrinter(): Printer {
  return {
    columns: [
      NAME,
      column('Ready', 'string', 'Ready pods of the desired replicas.'),
      column('Up-to-date', 'string', 'Pods with the current template.'),
      column('Available', 'string', 'Pods available to serve.'),
      AGE,
      ...TEMPLATE_COLUMNS,
    ],
    cells: (o, now) => [
      o.metadata.name,
      `${num(field(o, 'status', 'readyReplicas'))}/${num(field(o, 'spec', 'replicas'), 1)}`,
      num(field(o, 'status', 'updatedReplicas')),
      num(field(o, 'status', 'availableReplicas')),
      ageOf(o.metadata.creationTimestamp, now),
      ...templateCells(field(o, 'spec', 'template', 'spec'), field(o, 'spec', 'selector')),
    ],
  };
}

function jobStatus(o: KubeObject): string {
  const conditions = list(field(o, 'status', 'conditions'));
  const holds = (type: string) => conditions.some((c) => c.type === type && c.status === 'True');
  if (holds('Complete')) return 'Complete';
  if (holds('Failed')) return 'Failed';
  if (o.metadata.deletionTimestamp) return 'Terminating';
  if (holds('Suspended')) return 'Suspended';
  return 'Running';
}

/** COMPLETIONS: succeeded of the completions asked, or of one (of N in parallel) when none are. */
function jobCompletions(o: KubeObject): string {
  const succeeded = num(field(o, 'status', 'succeeded'));
  const completions = field(o, 'spec', 'completions');
  if (typeof completions === 'number') return `${succeeded}/${completions}`;
  const parallelism = num(field(o, 'spec', 'parallelism'));
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(o: KubeObject, now: number): string {
  const start = field(o, 'status', 'startTime');
  if (typeof start !== 'string') return '';
  const end = field(o, 'status', 'completionTime');
  return ageOf(start, typeof end === 'string' ? Date.parse(end) : now);
}

export function jobPrinter(): Printer {
  return {
    columns: [
      NAME,
      column('Status', 'string', 'The state of the job.'),
      column('Completions', 'string', 'Succeeded pods of the completions asked.'),
      column('Duration', 'string', 'The time the job ran.'),
      AGE,
      ...TEMPLATE_COLUMNS,
    ],
    cells: (o, now) => [
      o.metadata.name,
      jobStatus(o),
      jobCompletions(o),
      jobDuration(o, now),
      ageOf(o.metadata.creationTimestamp, now),
      ...templateCells(field(o, 'spec', 'template', 'spec'), field(o, 'spec', 'selector')),
    ],
  };
}

export function cronJobPrinter(): Printer {
  return {
    columns: [
      NAME,
      column('Schedule', 'string', 'The cron schedule.'),
      column('Timezone', 'string', 'The time zone of the schedule.'),
      column('Suspend', 'boolean', 'Whether new runs are held.'),
      column('Active', 'integer', 'Jobs running now.'),
      column('Last Schedule', 'string', 'The time since the last run was scheduled.'),
      AGE,
      ...TEMPLATE_COLUMNS,
    ],
    cells: (o, now) => {
      const jobSpec = field(o, 'spec', 'jobTemplate', 'spec');
      const last = field(o, 'status', 'lastScheduleTime');
      return [
        o.metadata.name,
        text(field(o, 'spec', 'schedule'), ''),
        text(field(o, 'spec', 'timeZone')),
        field(o, 'spec', 'suspend') === true ? 'True' : 'False',
        list(field(o, 'status', 'active')).length,
        typeof last === 'string' ? ageOf(last, now) : '<none>',
        ageOf(o.metadata.creationTimestamp, now),
        ...templateCells(field(jobSpec, 'template', 'spec'), field(jobSpec, 'selector')),
      ];
    },
  };
}
