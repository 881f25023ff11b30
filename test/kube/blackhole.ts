// A blackhole of one server's address inside the tests' network namespace (test-network.ts), or a
// lossy link to it (a share of the packets dropped at random, lossyLink): an
// nftables table of this file's own that drops every packet to and from that address and port —
// what its clients send (input) and what it sends them (output). Nothing answers, nothing is
// refused: TCP retransmits into the void, as on a firewall that drops. Only the serving port: the
// servers' own connections to etcd leave from the namespace's first address whichever server makes
// them (the kernel's source address choice), and dropping a whole address cut every server off etcd. The table is removed by lift(), and at process exit should a test fail first,
// so no rule outlives its test (the namespace is shared by every run of the kube suite).
import { execFileSync } from 'node:child_process';
import { NS_LINK, TEST_NETNS } from './test-network.js';

// Named after this process: kube test files running at once in the shared namespace (several
// checkouts on one machine) neither replace nor lift each other's rules.
const TABLE = `peerscope_blackhole_${process.pid}`;

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

let exitHook = false;

export interface Blackhole {
  /** Removes the drop rule (the table). */
  lift(): void;
}

/** Drops every packet to and from `ip`:`port` from now on. */
export function blackhole(ip: string, port: number): Blackhole {
  return dropPackets(ip, port, 100);
}

/**
 * Drops `percent` % of the packets to and from `ip`:`port` from now on, each drawn at random on its
 * own (nftables `numgen random`): a lossy link, which TCP hides by retransmitting.
 */
export function lossyLink(ip: string, port: number, percent: number): Blackhole {
  if (!Number.isInteger(percent) || percent < 1 || percent > 99) throw new Error(`not a loss percentage: ${percent}`);
  return dropPackets(ip, port, percent);
}

function dropPackets(ip: string, port: number, percent: number): Blackhole {
  if (!/^\d+\.\d+\.\d+\.\d+$/.test(ip) || !Number.isInteger(port)) throw new Error(`not an IPv4 address and port: ${ip}:${port}`);
  removeTable();
  if (!exitHook) {
    exitHook = true;
    process.once('exit', removeTable);
  }
  nft(['add', 'table', 'inet', TABLE]);
  nft(['add', 'chain', 'inet', TABLE, 'input', '{ type filter hook input priority -10 ; policy accept ; }']);
  nft(['add', 'chain', 'inet', TABLE, 'output', '{ type filter hook output priority -10 ; policy accept ; }']);
  const share = percent >= 100 ? [] : ['numgen', 'random', 'mod', '100', '<', String(percent)];
  nft(['add', 'rule', 'inet', TABLE, 'input', 'iifname', NS_LINK, 'ip', 'daddr', ip, 'tcp', 'dport', String(port), ...share, 'drop']);
  nft(['add', 'rule', 'inet', TABLE, 'output', 'oifname', NS_LINK, 'ip', 'saddr', ip, 'tcp', 'sport', String(port), ...share, 'drop']);
  return { lift: removeTable };
}

/** Why nftables cannot be used in the namespace, or undefined when it can. */
export function blackholeUnavailable(): string | undefined {
  try {
    execFileSync('ip', ['netns', 'exec', TEST_NETNS, 'nft', 'list', 'tables'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'nftables (`nft`, Debian package nftables) does not run in the test network namespace';
  }
}
