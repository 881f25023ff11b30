// `peerscope recording export` of the bench's large recording, as an operator runs it (the built CLI in
// its own process, on the Node running the bench): events exported a second, and the process's peak
// RSS (VmHWM, read from /proc while it runs) — which must not grow with the recording's length.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';

export interface ExportRun {
  readonly seconds: number;
  readonly peakRssMiB: number;
}

export async function exportRun(file: string, out: string): Promise<ExportRun> {
  rmSync(out, { recursive: true, force: true });
  const began = performance.now();
  const child = spawn(process.execPath, ['bin/peerscope', 'recording', 'export', file, '--out', out], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  let peak = 0;
  const sample = () => {
    try {
      peak = Math.max(peak, Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0));
    } catch {
      // The process has just ended.
    }
  };
  const timer = setInterval(sample, 20);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearInterval(timer);
  if (code !== 0) throw new Error(`recording export exited ${code}: ${stderr}`);
  return { seconds: (performance.now() - began) / 1000, peakRssMiB: peak / 1024 };
}
