// Runs a fake apiserver (upstream.ts, bundled) in its own process: writes its config, waits for its
// "ready" message and asks it for its counters over the IPC channel.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Files, UpstreamProcess } from './targets.js';
import type { UpstreamConfig, UpstreamStats } from './upstream.js';

export async function startUpstream(
  files: Files,
  config: Omit<UpstreamConfig, 'certFile' | 'keyFile' | 'token'>,
): Promise<UpstreamProcess> {
  const configFile = join(files.dir, `upstream-${config.name}.json`);
  const full: UpstreamConfig = { ...config, certFile: files.certFile, keyFile: files.keyFile, token: files.token };
  writeFileSync(configFile, JSON.stringify(full));
  const child = spawn(process.execPath, [join(files.buildDir, 'upstream.mjs'), configFile], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ port: number; pids: number[] }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`upstream ${config.name} did not start within 30 s`)), 30_000);
    child.on('message', (m: { ready?: boolean; port: number; pids: number[] }) => {
      if (m.ready) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`upstream ${config.name} exited with ${code}`));
    });
  });
  let nextId = 0;
  return {
    name: config.name,
    url: `https://127.0.0.1:${ready.port}`,
    pids: ready.pids,
    stats: () =>
      new Promise((resolve) => {
        const id = ++nextId;
        const onMessage = (m: { stats?: UpstreamStats; id?: number }) => {
          if (m.stats && m.id === id) {
            child.off('message', onMessage);
            resolve(m.stats);
          }
        };
        child.on('message', onMessage);
        child.send({ cmd: 'stats', id });
      }),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}
