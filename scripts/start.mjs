// `npm start`: build when needed, then the desktop app when Electron's binary is present, otherwise
// the same engine in the terminal/browser on the embedded simulated control plane (`peerscope demo`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

if (!existsSync('dist/cli.mjs') || !existsSync('dist/renderer/index.html') || process.env.PEERSCOPE_REBUILD) {
  const built = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

function electronBinary() {
  try {
    const require = createRequire(import.meta.url);
    const dir = require.resolve('electron/package.json').replace(/package\.json$/, '');
    const rel = existsSync(`${dir}path.txt`) ? readFileSync(`${dir}path.txt`, 'utf8') : '';
    return rel && existsSync(`${dir}dist/${rel}`) ? `${dir}dist/${rel}` : undefined;
  } catch {
    return undefined;
  }
}

const electron = electronBinary();
const desktopMain = 'dist/electron/main.cjs';
if (electron && existsSync(desktopMain)) {
  spawn(electron, [desktopMain], { stdio: 'inherit' }).on('exit', (code) => process.exit(code ?? 0));
} else {
  console.error(
    electron
      ? 'peerscope: the desktop shell is not built yet; running the demo in the terminal instead.'
      : 'peerscope: no Electron binary here (it is downloaded on a machine with network access); serving the same UI in browser mode on the simulated cluster.',
  );
  const child = spawn(process.execPath, ['bin/peerscope', 'demo', '--ui', ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code) => process.exit(code ?? 0));
}
