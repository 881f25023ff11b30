// The throughput bench alone, for experiments: `npx tsx bench/throughput/main.ts [--quick]
// [--rounds N] [--seconds S] [--connections C] [--only peerscope,nginx,…] [--json FILE]`.
// `npm run bench` runs it as one section among the others.
import { writeFileSync } from 'node:fs';
import { runThroughput } from './index.js';
import type { TargetName } from './targets.js';

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const num = (name: string) => (flag(name) ? Number(flag(name)) : undefined);
const only = flag('--only')?.split(',') as TargetName[] | undefined;
const result = await runThroughput({
  quick: argv.includes('--quick'),
  ...(num('--rounds') ? { rounds: num('--rounds') } : {}),
  ...(num('--seconds') ? { seconds: num('--seconds') } : {}),
  ...(num('--connections') ? { connections: num('--connections') } : {}),
  ...(only ? { only } : {}),
});
const out = flag('--json');
if (out) writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
