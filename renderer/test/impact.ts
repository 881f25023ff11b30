// An upgrade-impact report of plain data for component tests: three clients, one finding of each
// impact, volumes chosen so that sorting by impact and by volume give different orders.
import type { ImpactFinding, ImpactReport } from '../../proxy-core/contract/index.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const KCM = 'kube-controller-manager/v1.36.0 (linux/amd64) kubernetes/5f3c9a1/system:serviceaccount:kube-system:generic-garbage-collector';
const LEGACY = 'legacy-operator/v0.8.3 (linux/amd64) kubernetes/1a2b3c4/legacy-controller';
const KUBECTL = 'kubectl/v1.36.0 (linux/amd64) kubernetes/5f3c9a1';

function finding(
  over: Partial<ImpactFinding> & Pick<ImpactFinding, 'impact' | 'client' | 'group' | 'version' | 'resource' | 'verbs' | 'message'>,
): ImpactFinding {
  return {
    evidence: {
      servedNowBy: ['sim-1', 'sim-2', 'sim-3'],
      notServedNowBy: [],
      servedByTarget: false,
      notFound: 0,
      warnings: [],
      firstAt: T0,
      lastAt: T0 + 60_000,
    },
    minutes: [{ at: T0, count: over.verbs.reduce((n, v) => n + v.count, 0) }],
    ...over,
  };
}

export function sampleImpactReport(target = 'v1.37-dev'): ImpactReport {
  return {
    apiVersion: 'peerscope.dev/v1',
    kind: 'ImpactReport',
    at: T0 + 120_000,
    target: { release: target, gitVersion: `${target.replace(/-dev$/, '.0-dev')}` },
    current: [
      { name: 'sim-1', gitVersion: 'v1.36.0-dev' },
      { name: 'sim-2', gitVersion: 'v1.36.0-dev' },
    ],
    window: { since: T0, until: T0 + 120_000, minutes: 2 },
    findings: [
      finding({
        impact: 'removed',
        client: { name: 'legacy-operator (legacy-controller)', userAgent: LEGACY, identity: 'token:1a2b3c4d' },
        group: 'storage.k8s.io',
        version: 'v1beta1',
        resource: 'volumeattributesclasses',
        verbs: [
          { verb: 'list', count: 4, perMinute: 2 },
          { verb: 'watch', count: 1, perMinute: 0.5 },
        ],
        message: `legacy-operator (legacy-controller) lists storage.k8s.io/v1beta1 volumeattributesclasses 2 times a minute and watches it about once every 2 minutes: not served by ${target} → 404 after the upgrade`,
      }),
      finding({
        impact: 'skewed',
        client: { name: 'kubectl', userAgent: KUBECTL, identity: 'sim-admin' },
        group: 'resource.k8s.io',
        version: 'v1',
        resource: 'resourceclaims',
        verbs: [{ verb: 'create', count: 6, perMinute: 3 }],
        message:
          'kubectl creates resource.k8s.io/v1 resourceclaims 3 times a minute: served by sim-1 but not sim-2 → false 404s from it while the rollout runs, unless a mixed version proxy reroutes',
        evidence: {
          servedNowBy: ['sim-1'],
          notServedNowBy: ['sim-2'],
          servedByTarget: true,
          notFound: 0,
          warnings: [],
          firstAt: T0,
          lastAt: T0 + 60_000,
        },
      }),
      finding({
        impact: 'deprecated',
        client: { name: 'kubectl', userAgent: KUBECTL, identity: 'sim-admin' },
        group: 'flowcontrol.apiserver.k8s.io',
        version: 'v1beta3',
        resource: 'prioritylevelconfigurations',
        verbs: [{ verb: 'list', count: 2, perMinute: 1 }],
        message:
          'kubectl lists flowcontrol.apiserver.k8s.io/v1beta3 prioritylevelconfigurations about once a minute: the apiserver warns "flowcontrol.apiserver.k8s.io/v1beta3 PriorityLevelConfiguration is deprecated in v1.29+"',
        evidence: {
          servedNowBy: ['sim-1', 'sim-2'],
          notServedNowBy: [],
          servedByTarget: true,
          notFound: 0,
          warnings: ['flowcontrol.apiserver.k8s.io/v1beta3 PriorityLevelConfiguration is deprecated in v1.29+'],
          firstAt: T0,
          lastAt: T0 + 60_000,
        },
      }),
      finding({
        impact: 'target-only',
        client: { name: 'kube-controller-manager (generic-garbage-collector)', userAgent: KCM, identity: 'sim-admin' },
        group: 'scheduling.k8s.io',
        version: 'v1beta1',
        resource: 'podgroups',
        verbs: [{ verb: 'list', count: 40, perMinute: 20 }],
        message: `kube-controller-manager (generic-garbage-collector) lists scheduling.k8s.io/v1beta1 podgroups 20 times a minute: served only by ${target} → 404 now (40 so far), answered after the upgrade`,
        evidence: {
          servedNowBy: [],
          notServedNowBy: ['sim-1', 'sim-2'],
          servedByTarget: true,
          notFound: 40,
          warnings: [],
          firstAt: T0,
          lastAt: T0 + 60_000,
        },
      }),
    ],
    clients: 3,
    untracked: 0,
    targets: ['v1.36-dev', 'v1.37-dev'],
  };
}
