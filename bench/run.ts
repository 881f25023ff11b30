// `npm run bench`: speed and memory figures, each printed beside its target. `--quick` runs a short
// version (the test suite runs it as a smoke test). Results are also written to bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { auditFigures } from './audit.js';
import { microFigures, type Figure } from './micro.js';
import { openApiV2FiguresApart } from './openapi-v2.js';
import { idleRssMiB } from './rss.js';
import { recordingEventsFromArgs, recordingFigures } from './recording/index.js';
import { serveEventsFromArgs } from './recording/serve-rss.js';
import { cpuAgainstKubectl, serveMemoryFigures } from './serve-memory.js';
import { snapshotFigures } from './snapshot.js';
import { longSoakFromArgs } from './soak/index.js';
import { runThroughput } from './throughput/index.js';
import { IDLE_SETTLE_MS } from './throughput/plan.js';
import { steadyClient } from './throughput/setup.js';
import { uiFigures } from './ui/chromium.js';

const quick = process.argv.includes('--quick');
// This process is the client of every timed request and watch (setup.ts).
steadyClient();

// `--soak-minutes N`: only the long rollout soak with the port's RSS growth (bench/soak).
const soakExit = await longSoakFromArgs(process.argv);
if (soakExit !== undefined) process.exit(soakExit);

const met = (f: Figure): boolean => f.target === undefined || (f.atLeast ? f.value >= f.target : f.value <= f.target);

function print(f: Figure): void {
  const value = f.value < 10 ? f.value.toFixed(3) : f.value.toFixed(1);
  if (f.target === undefined) {
    console.log(`info  ${f.name.padEnd(56)} ${value.padStart(9)} ${f.unit}`);
    return;
  }
  console.log(
    `${met(f) ? 'ok  ' : 'MISS'}  ${f.name.padEnd(56)} ${value.padStart(9)} ${f.unit.padEnd(3)} (target ${f.atLeast ? '≥' : '≤'} ${f.target} ${f.unit}, ratio ${(f.value / f.target).toFixed(2)})`,
  );
}

// `--only recording`: the recording's section alone (`--recording-events N` sizes its large recording).
// `--only memory`: issue 42's memory lines alone (`--serve-events N` sizes the recorded feed).
const recordingEvents = recordingEventsFromArgs(process.argv, quick);
const serveEvents = serveEventsFromArgs(process.argv, quick);
if (process.argv.includes('--only')) {
  const only = process.argv[process.argv.indexOf('--only') + 1];
  if (only !== 'recording' && only !== 'memory')
    throw new Error(`--only ${only}: the sections that run alone are "recording" and "memory"`);
  console.log(`peerscope bench, ${only} only${quick ? ' (quick)' : ''}: node ${process.version}, ${new Date().toISOString()}`);
  const figures = only === 'recording' ? await recordingFigures({ quick, events: recordingEvents }) : await memoryAlone();
  for (const f of figures) print(f);
  process.exit(figures.every(met) ? 0 : 1);
}

async function memoryAlone(): Promise<Figure[]> {
  const idle = await idleRssMiB(quick ? 1_000 : IDLE_SETTLE_MS);
  const throughput = await runThroughput({ quick, only: ['peerscope', 'kubectl'], log: () => undefined });
  return [...(await serveMemoryFigures(idle, throughput, serveEvents)), ...cpuAgainstKubectl(throughput)];
}

const figures: Figure[] = [];
console.log(`peerscope bench${quick ? ' (quick)' : ''}: node ${process.version}, ${new Date().toISOString()}`);
console.log('\nrouting core (in-process, median of 7 rounds)');
for (const f of microFigures()) {
  figures.push(f);
  print(f);
}
console.log('\nsnapshots');
for (const f of snapshotFigures()) {
  figures.push(f);
  print(f);
}
console.log('\nUI in Chromium (built renderer, UI server, synthetic CoreClient)');
for (const f of await uiFigures({ quick })) {
  figures.push(f);
  print(f);
}
console.log('\nOpenAPI v2 merged by the port (rule P8), 3 servers of real size');
for (const f of await openApiV2FiguresApart({ quick })) {
  figures.push(f);
  print(f);
}
console.log('\nmemory');
const rss = {
  name: 'idle RSS of peerscope serve (2 servers)',
  value: await idleRssMiB(quick ? 1_000 : IDLE_SETTLE_MS),
  unit: 'MiB',
  target: 70,
};
figures.push(rss);
print(rss);

console.log('\naudit logs (the cluster source)');
for (const f of await auditFigures({ quick })) {
  figures.push(f);
  print(f);
}

console.log('\nrecording (engine/recording: SQLite by node:sqlite)');
for (const f of await recordingFigures({ quick, events: recordingEvents })) {
  figures.push(f);
  print(f);
}

// Side by side with kubectl proxy, nginx, a bare undici proxy and no proxy (bench/throughput).
const throughput = await runThroughput({ quick });

console.log(`\nmemory of peerscope serve (issue 42's targets; ${serveEvents.toLocaleString('en-US')} recorded events)`);
for (const f of await serveMemoryFigures(rss.value, throughput, serveEvents)) {
  figures.push(f);
  print(f);
}

mkdirSync('bench/results', { recursive: true });
writeFileSync(
  `bench/results/bench-${quick ? 'quick' : 'full'}.json`,
  JSON.stringify({ at: new Date().toISOString(), node: process.version, figures, throughput }, null, 2) + '\n',
);
const targeted = figures.filter((f) => f.target !== undefined);
const missed = targeted.filter((f) => !met(f)).map((m) => m.name);
const judged = throughput.checks.filter((c) => c.ok !== undefined);
missed.push(...judged.filter((c) => !c.ok).map((c) => c.name));
const total = targeted.length + judged.length;
console.log(`\n${total - missed.length} of ${total} targets met${missed.length ? `; missed: ${missed.join(', ')}` : ''}`);
