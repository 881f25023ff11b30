// The apiservers named on the command line (--server NAME=URL, with --ca and --token-file), as the
// commands that reach servers without a kubeconfig (serve, audit) build them.
import { readFileSync } from 'node:fs';
import { tokenFileSource, type BearerSource } from '../../engine/cluster/credentials.js';
import { caBundleProblem } from '../../engine/cluster/pem.js';
import type { ServerConfig } from '../../engine/cluster/server-config.js';
import { proxyFor, redactProxy } from '../../engine/upstream/proxy-config.js';
import { fail, failToRead } from './usage.js';

export interface ServerFlags {
  server: { name: string; url: string }[];
  ca?: string;
  tokenFile?: string;
}

export interface FlagServers {
  readonly servers: ServerConfig[];
  /** The --token-file's tokens, when given. */
  readonly tokens: BearerSource | undefined;
}

/** Exits 2 naming the flag when a file cannot be read or holds no CA, or the environment's proxy is malformed. */
export function serversFromFlags(flags: ServerFlags): FlagServers {
  const ca = flags.ca ? readOrExit(flags.ca, '--ca') : undefined;
  const caProblem = ca === undefined ? undefined : caBundleProblem(ca);
  if (caProblem) fail(`--ca ${flags.ca}: ${caProblem}`);
  let tokens: BearerSource | undefined;
  try {
    tokens = flags.tokenFile ? tokenFileSource(flags.tokenFile) : undefined;
  } catch (err) {
    fail(`--token-file: ${(err as Error).message}`);
  }
  // Like any client-go program, HTTPS_PROXY / NO_PROXY apply to the servers given on the command line.
  const servers = flags.server.map((s): ServerConfig => {
    let proxy: URL | undefined;
    try {
      proxy = proxyFor(s.url, { env: process.env });
    } catch (err) {
      fail(`${(err as Error).message} (from the environment)`);
    }
    if (proxy)
      process.stderr.write(`peerscope: ${s.name}: connecting through the proxy ${redactProxy(proxy)} (HTTPS_PROXY / HTTP_PROXY)\n`);
    return {
      ...s,
      source: 'flag' as const,
      ...(ca ? { ca } : {}),
      ...(proxy ? { proxy: proxy.href } : {}),
      ...(tokens ? { bearerToken: () => tokens?.token() } : {}),
    };
  });
  return { servers, tokens };
}

function readOrExit(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    return failToRead(flag, file, err);
  }
}
