// An address of the tests' network namespace that nothing answers: every packet to it (and from it)
// on one port is dropped, as a firewall in front of a private subnet does — a connection attempt
// waits in silence until its own timeout. Like blackhole.ts, but in an nftables table named after
// this process, so kube test files running at once in the shared namespace (several worktrees on one
// machine) neither replace nor lift each other's rules. Removed by lift(), and at process exit.
import { execFileSync } from 'node:child_process';
import { NS_LINK, TEST_NETNS } from './test-network.js';

const TABLE = `peerscope_silent_${process.pid}`;

function nft(args: readonly string[]): void {
  execFileSync('ip', ['netns', 'exec', TEST_NETNS, 'nft', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
}

function removeTable(): void {
  try {
    nft(['delete', 'table', 'inet', TABLE]);
  } catch {
    // not there: nothing to remove
  }
}

export interface SilentAddress {
  lift(): void;
}

/** Drops every packet to and from `ip`:`port` in the namespace from now on (one such address per process). */
export function silentAddress(ip: string, port: number): SilentAddress {
  if (!/^\d+\.\d+\.\d+\.\d+$/.test(ip) || !Number.isInteger(port)) throw new Error(`not an IPv4 address and port: ${ip}:${port}`);
  removeTable();
  process.once('exit', removeTable);
  nft(['add', 'table', 'inet', TABLE]);
  nft(['add', 'chain', 'inet', TABLE, 'input', '{ type filter hook input priority -10 ; policy accept ; }']);
  nft(['add', 'chain', 'inet', TABLE, 'output', '{ type filter hook output priority -10 ; policy accept ; }']);
  nft(['add', 'rule', 'inet', TABLE, 'input', 'iifname', NS_LINK, 'ip', 'daddr', ip, 'tcp', 'dport', String(port), 'drop']);
  nft(['add', 'rule', 'inet', TABLE, 'output', 'oifname', NS_LINK, 'ip', 'saddr', ip, 'tcp', 'sport', String(port), 'drop']);
  return { lift: removeTable };
}
