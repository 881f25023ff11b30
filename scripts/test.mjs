// `npm test`: every check and every test, on the Node the desktop app ships on (package.json
// config.shippedNode, the Node Electron embeds), and the port's own tests again on the lowest Node
// `engines` admits. Each Node is fetched from the npm registry the first time (scripts/node/nodes.mjs).
// Build, type-check, formatting, lint and the size check (scripts/check-size.mjs) stop at the first
// failure; the test projects all run, and the last line sums them up.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { envWithNode, nodeBinary, NODES } from './node/nodes.mjs';

const shipped = nodeBinary(NODES.shipped);
const lowest = nodeBinary(NODES.lowest);
const reports = mkdtempSync(join(tmpdir(), 'peerscope-test-'));

function run(bin, command, args) {
  return spawnSync(command, args, { stdio: 'inherit', env: envWithNode(bin) }).status ?? 1;
}

for (const script of ['build', 'typecheck', 'format:check', 'lint']) {
  const status = run(shipped, 'npm', ['run', '-s', script]);
  if (status !== 0) {
    console.error(`test: npm run ${script} failed (exit ${status})`);
    process.exit(status);
  }
}
// The size a reader can hold: no function over 100 lines, no source file over 320 (check-size.mjs names each).
const sizes = run(shipped, 'node', ['scripts/check-size.mjs']);
if (sizes !== 0) {
  console.error(`test: node scripts/check-size.mjs failed (exit ${sizes})`);
  process.exit(sizes);
}

// [project, Node role]: the soak first and alone (it judges timing), the real-Kubernetes suite last.
const runs = [
  ['soak', 'shipped'],
  ['main', 'shipped'],
  ['port', 'lowest'],
  ['kube', 'shipped'],
];
const totals = { passed: 0, failed: 0, skipped: 0 };
const lines = [];
let worst = 0;
for (const [project, role] of runs) {
  const bin = role === 'shipped' ? shipped : lowest;
  console.log(`\ntest: vitest project "${project}" on Node ${NODES[role]} (${role})`);
  const report = join(reports, `${project}.json`);
  const status = run(bin, 'npx', [
    'vitest',
    'run',
    '--project',
    project,
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
  ]);
  worst ||= status;
  let counts;
  try {
    const r = JSON.parse(readFileSync(report, 'utf8'));
    counts = { passed: r.numPassedTests, failed: r.numFailedTests, skipped: r.numPendingTests + r.numTodoTests };
  } catch {
    counts = { passed: 0, failed: 1, skipped: 0 }; // no report: the run itself broke
  }
  for (const k of Object.keys(totals)) totals[k] += counts[k];
  lines.push(
    `  ${project.padEnd(5)} Node ${NODES[role].padEnd(8)} ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`,
  );
}
rmSync(reports, { recursive: true, force: true });
console.log(`\n${lines.join('\n')}`);
console.log(`test: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(worst || (totals.failed > 0 ? 1 : 0));
