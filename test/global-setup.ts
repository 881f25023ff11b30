// Runs once before every test file: the CLI tests spawn bin/peerscope, which needs dist/cli.mjs.
// Building here (not in each file) avoids two files writing the bundle at the same time.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '--cli'], { cwd: root, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`building the CLI for the tests failed:\n${built.stderr}`);
}
