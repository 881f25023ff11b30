// The command lines of a test control plane's processes: etcd, and each kube-apiserver with the
// authentication a real cluster has (client CA, tokens, front proxy, service accounts) and its own
// Mixed Version Proxy set up as the spec asks.
import type { ControlPlanePki } from './pki.js';

/**
 * The servers' own Mixed Version Proxy (KEP-4020): on = --peer-ca-file, the proxy client certificate
 * and --peer-advertise-ip/port; no-peer-ca = the gate on (the default since v1.36) without
 * --peer-ca-file, as kubeadm sets it up; gate-off = UnknownVersionInteroperabilityProxy=false.
 */
export type OwnMvp = 'on' | 'no-peer-ca' | 'gate-off';

export interface ApiserverSpec {
  /** The machine's hostname: the identity lease is named after it. */
  readonly host: string;
  readonly release: string;
  /** --runtime-config, e.g. flowcontrol.apiserver.k8s.io/v1beta3=true. */
  readonly runtimeConfig?: string;
  readonly mvp?: OwnMvp;
  /** --shutdown-delay-duration: after SIGTERM, readyz fails this long while the server still serves (what load balancers and Peerscope's probe see). */
  readonly shutdownDelaySeconds?: number;
  /**
   * An audit log of every request: the policy file and the log it writes (JSON lines, one event per
   * stage); with a webhook kubeconfig, the same events are also posted in batches (at most 1 s apart).
   */
  readonly audit?: { readonly policyFile: string; readonly logFile: string; readonly webhookConfigFile?: string };
}

/** The Service IP range the servers allocate from; nothing is ever routed there. */
const SERVICE_RANGE = '10.96.0.0/16';

export function etcdArgs(dir: string, clientUrl: string, peerUrl: string): string[] {
  return [
    '--name',
    'etcd0',
    '--data-dir',
    `${dir}/etcd`,
    '--listen-client-urls',
    clientUrl,
    '--advertise-client-urls',
    clientUrl,
    '--listen-peer-urls',
    peerUrl,
    '--initial-advertise-peer-urls',
    peerUrl,
    '--initial-cluster',
    `etcd0=${peerUrl}`,
    // A test cluster's data dies with the test: skipping fsync keeps two busy cores responsive.
    '--unsafe-no-fsync',
    '--log-level',
    'warn',
  ];
}

export interface ServerPlace {
  readonly address: string;
  readonly port: number;
  readonly etcdUrl: string;
  readonly certDir: string;
  readonly files: ControlPlanePki['files'];
}

export function apiserverFlags(spec: ApiserverSpec, where: ServerPlace): string[] {
  const mvp = spec.mvp ?? 'on';
  const { address, port, etcdUrl, certDir, files: f } = where;
  return [
    `--etcd-servers=${etcdUrl}`,
    `--bind-address=${address}`,
    `--advertise-address=${address}`,
    `--secure-port=${port}`,
    `--cert-dir=${certDir}`,
    `--tls-cert-file=${f.serving.cert}`,
    `--tls-private-key-file=${f.serving.key}`,
    `--client-ca-file=${f.ca}`,
    `--token-auth-file=${f.tokens}`,
    '--authorization-mode=RBAC',
    `--service-cluster-ip-range=${SERVICE_RANGE}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${f.serviceAccountPub}`,
    `--service-account-signing-key-file=${f.serviceAccountKey}`,
    `--requestheader-client-ca-file=${f.frontProxyCa}`,
    '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${f.proxyClient.cert}`,
    `--proxy-client-key-file=${f.proxyClient.key}`,
    '--profiling=false',
    ...(spec.runtimeConfig ? [`--runtime-config=${spec.runtimeConfig}`] : []),
    ...(spec.shutdownDelaySeconds ? [`--shutdown-delay-duration=${spec.shutdownDelaySeconds}s`] : []),
    ...(spec.audit
      ? [`--audit-policy-file=${spec.audit.policyFile}`, `--audit-log-path=${spec.audit.logFile}`, '--audit-log-format=json']
      : []),
    ...(spec.audit?.webhookConfigFile
      ? [
          `--audit-webhook-config-file=${spec.audit.webhookConfigFile}`,
          '--audit-webhook-batch-max-wait=1s',
          // Its batches fail until the receiver listens (it starts after the servers): retry within a second, not ten.
          '--audit-webhook-initial-backoff=1s',
        ]
      : []),
    ...(mvp === 'on'
      ? [
          `--peer-ca-file=${f.ca}`,
          `--peer-advertise-ip=${address}`,
          `--peer-advertise-port=${port}`,
          '--feature-gates=UnknownVersionInteroperabilityProxy=true',
        ]
      : []),
    ...(mvp === 'gate-off' ? ['--feature-gates=UnknownVersionInteroperabilityProxy=false'] : []),
  ];
}
