// Runs `peerscope serve` in N node:cluster worker processes sharing one listening port (the primary
// accepts and hands connections out round-robin): the "second process" design, for cluster-ab.ts.
//
//   node dist/bench/cluster-peerscope.mjs N serve --listen 127.0.0.1:0 …   (bundled by setup.ts)
// Only the first worker's "Starting to serve" line is printed; SIGTERM stops every worker.
import cluster from 'node:cluster';

const [count, ...args] = process.argv.slice(2);
cluster.setupPrimary({ exec: new URL('../../bin/peerscope', import.meta.url).pathname, args, silent: true });
let announced = false;
for (let i = 0; i < Number(count); i++) {
  const worker = cluster.fork();
  worker.process.stderr?.pipe(process.stderr);
  worker.process.stdout?.on('data', (chunk: Buffer) => {
    if (announced || !String(chunk).includes('Starting to serve on')) return;
    announced = true;
    process.stdout.write(chunk);
  });
}
process.on('SIGTERM', () => {
  for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  cluster.on('exit', () => {
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  });
});
