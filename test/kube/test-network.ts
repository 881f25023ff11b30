// The tests' own network for real kube-apiservers: a network namespace with a veth pair to this
// machine, made by the tests as root and kept for the next run. Every server is a machine of its own
// to Kubernetes — its own address in the namespace (198.18.0.11 …), all on one secure port — and the
// tests, Peerscope and kubectl reach them through the veth from here. Why not 127.x: kube-apiserver's
// endpoints reconciler refuses a loopback advertise address, and servers sharing one address would
// share one identity (docs/decisions.md, "Real Kubernetes in the suite").
import { execFileSync } from 'node:child_process';

export const TEST_NETNS = 'peerscope-kube';
/** This machine's end of the veth: etcd listens here, where every server reaches it. */
export const HOST_IP = '198.18.0.1';
const HOST_LINK = 'psk-host';
/** The namespace's end of the veth: what arrives from this machine comes in here. */
export const NS_LINK = 'psk-ns';
const PREFIX = 24;

function ip(args: readonly string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function inNs(args: readonly string[]): string {
  return ip(['netns', 'exec', TEST_NETNS, 'ip', ...args]);
}

/** Why this machine cannot have the network, or undefined when it can. */
export function testNetworkUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return "the servers run in a network namespace of the tests' own (ip netns), and only root may make one";
  try {
    ip(['-V']);
  } catch {
    return "the `ip` command (Debian's iproute2) is missing";
  }
  return undefined;
}

/** Makes the namespace, the veth pair and each of `ips` in the namespace, where missing. Idempotent. */
export function ensureTestNetwork(ips: readonly string[]): void {
  const why = testNetworkUnavailable();
  if (why) throw new Error(why);
  if (
    !ip(['netns', 'list'])
      .split('\n')
      .some((l) => l.split(' ')[0] === TEST_NETNS)
  ) {
    ip(['netns', 'add', TEST_NETNS]);
  }
  if (!ip(['-o', 'link', 'show']).includes(`${HOST_LINK}@`)) {
    ip(['link', 'add', HOST_LINK, 'type', 'veth', 'peer', 'name', NS_LINK]);
    ip(['link', 'set', NS_LINK, 'netns', TEST_NETNS]);
    ip(['addr', 'add', `${HOST_IP}/${PREFIX}`, 'dev', HOST_LINK]);
    ip(['link', 'set', HOST_LINK, 'up']);
    inNs(['link', 'set', 'lo', 'up']);
    inNs(['link', 'set', NS_LINK, 'up']);
  }
  const have = inNs(['-o', '-4', 'addr', 'show', 'dev', NS_LINK]);
  for (const addr of ips) {
    if (!have.includes(` ${addr}/`)) inNs(['addr', 'add', `${addr}/${PREFIX}`, 'dev', NS_LINK]);
  }
}

/** `command args` run inside the namespace (`ip netns exec` execs it: the PID stays the server's). */
export function inTestNetwork(command: string, args: readonly string[]): { command: string; args: string[] } {
  return { command: 'ip', args: ['netns', 'exec', TEST_NETNS, command, ...args] };
}
