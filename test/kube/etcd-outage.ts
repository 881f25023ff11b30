// etcd stopped and started again under a running control plane (control-plane.ts): the etcd process
// is found by its command line (the etcd binary with the control plane's data directory), stopped by
// its PID (SIGTERM: etcd's own clean stop) and started again with the very same command line and
// data, so every server's etcd client reconnects to the same member with the same data. The process
// started again is tracked like every other (processes.ts): killed at exit should a test fail first.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import type { ControlPlane } from './control-plane.js';
import { startProcess, waitFor, type Started } from './processes.js';

function commandLineOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return undefined;
  }
}

/** The PID and command line of the control plane's etcd. */
function findEtcd(cp: ControlPlane): { pid: number; argv: string[] } {
  const dataDir = `${cp.dir}/etcd`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const argv = commandLineOf(Number(entry));
    if (argv && argv[0] === cp.binaries.etcd && argv.includes(dataDir)) return { pid: Number(entry), argv };
  }
  throw new Error(`no etcd process with data directory ${dataDir}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface EtcdOutage {
  /** Starts etcd again (same command line, same data); resolves once it answers healthy. */
  restart(): Promise<void>;
  /** Stops the etcd started again (after the control plane's own close, which knows only the first). */
  close(): Promise<void>;
}

/** Stops the control plane's etcd now; resolves once it has exited. */
export async function stopEtcd(cp: ControlPlane): Promise<EtcdOutage> {
  const { pid, argv } = findEtcd(cp);
  process.kill(pid, 'SIGTERM');
  await waitFor('etcd exits', async () => (alive(pid) ? undefined : true), 30_000);
  let again: Started | undefined;
  return {
    async restart() {
      again = startProcess(argv[0] as string, argv.slice(1), join(cp.dir, 'etcd.log'));
      const started = again;
      await waitFor(
        'etcd healthy again',
        async () => {
          const res = await request(`${cp.etcdUrl}/health`);
          return (await res.body.text()).includes('"true"') ? true : undefined;
        },
        30_000,
        () => (started.child.exitCode !== null ? `exited ${started.child.exitCode}:\n${started.tail()}` : undefined),
      );
    },
    close: async () => again?.stop(10_000),
  };
}
