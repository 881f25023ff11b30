// From a kubeconfig to the servers the core routes between: the kubeconfig's credentials and TLS
// settings, applied to every apiserver found in the cluster, each contacted at its own address with
// the TLS server name of the kubeconfig's server (its certificate names that, not the IP).
import { ControlClient } from './control-client.js';
import { bearerSourceFor, type BearerSource } from './credentials.js';
import { findApiservers, type FoundServer } from './find-servers.js';
import { loadKubeconfig, type LoadOptions, type ResolvedKubeconfig } from './kubeconfig.js';
import type { ServerConfig } from './server-config.js';

export interface ClusterServers {
  readonly kubeconfig: ResolvedKubeconfig;
  readonly servers: ServerConfig[];
  readonly found: FoundServer[];
  readonly warnings: string[];
  readonly credentials: BearerSource;
}

export async function serversFromKubeconfig(options: LoadOptions & { overrides?: { name: string; url: string }[] }): Promise<ClusterServers> {
  const kubeconfig = loadKubeconfig(options);
  const warnings: string[] = [];
  if (kubeconfig.tls.insecureSkipVerify) {
    throw new Error(`${kubeconfig.files.join(', ')}: cluster "${kubeconfig.clusterName}" sets insecure-skip-tls-verify; Peerscope always verifies apiserver certificates: give the cluster's certificate-authority instead`);
  }
  if (kubeconfig.proxyUrl || process.env.HTTPS_PROXY) {
    warnings.push('proxy-url / HTTPS_PROXY is set: Peerscope connects to the apiservers directly (proxy support is not built yet)');
  }
  const credentials = bearerSourceFor(kubeconfig);
  await credentials.refresh();
  const hostname = new URL(kubeconfig.server).hostname;
  const servername = kubeconfig.tls.servername ?? (/^[\d.]+$|:/.test(hostname) ? undefined : hostname);
  const base = (name: string, url: string, source: ServerConfig['source']): ServerConfig => ({
    name,
    url,
    source,
    ...(kubeconfig.tls.ca ? { ca: kubeconfig.tls.ca } : {}),
    ...(servername ? { servername } : {}),
    ...(kubeconfig.clientCert ? { clientCert: kubeconfig.clientCert } : {}),
    bearerToken: () => credentials.token(),
  });
  const probe = new ControlClient(base('kubeconfig', kubeconfig.server, 'kubeconfig'));
  let found: FoundServer[];
  try {
    const result = await findApiservers(probe, kubeconfig.server);
    found = result.servers;
    warnings.push(...result.warnings);
  } finally {
    await probe.close();
  }
  const servers = found.map((f) => base(f.name, f.url, f.source));
  for (const o of options.overrides ?? []) {
    const i = servers.findIndex((s) => s.name === o.name);
    const s = base(o.name, o.url, 'flag');
    if (i >= 0) servers[i] = s;
    else servers.push(s);
  }
  return { kubeconfig, servers, found, warnings, credentials };
}
