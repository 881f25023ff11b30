// `--record FILE` (serve, demo) checked before anything starts. Its own file: serve and demo import
// it without the recording commands' report and export (recording.ts).
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** `--record FILE` names a new file in a folder that exists. */
export function checkNewRecording(file: string, fail: (message: string) => never): void {
  if (existsSync(file)) fail(`--record ${file}: already exists: a recording is written to a new file (remove it or name another)`);
  const dir = dirname(resolve(file));
  if (!existsSync(dir)) fail(`--record ${file}: no such folder ${dir}`);
}
