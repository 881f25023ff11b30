#!/usr/bin/env node
// node scripts/node/use.mjs shipped|lowest [-- COMMAND ARG…]
// Runs COMMAND with that Node first on PATH (fetched from the npm registry the first time); without a
// command, prints the binary's path. `npm run bench` and `npm start` go through it.
import { spawn } from 'node:child_process';
import { envWithNode, nodeBinary, NODES } from './nodes.mjs';

const [role, dashes, command, ...args] = process.argv.slice(2);
if (!(role in NODES) || (dashes !== undefined && (dashes !== '--' || !command))) {
  process.stderr.write('usage: node scripts/node/use.mjs shipped|lowest [-- COMMAND ARG…]\n');
  process.exit(2);
}
const bin = nodeBinary(NODES[role]);
if (!command) {
  process.stdout.write(`${bin}\n`);
  process.exit(0);
}
const child = spawn(command, args, { stdio: 'inherit', env: envWithNode(bin) });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
