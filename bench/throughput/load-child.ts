// Fallback load generator for machines without wrk: a closed loop of `connections` keep-alive
// connections (undici Pool, one request in flight per connection) for `durationMs`, in its own
// process so its CPU never lands on the process under test. Prints the same BENCH-JSON line as
// bench/throughput/wrk.lua.
//
// `node load-child.mjs '{"url":…,"method":…,"bodyFile":…,"headers":{…},"connections":16,"durationMs":3000,"caFile":…}'`
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';

interface Options {
  readonly url: string;
  readonly method: string;
  readonly bodyFile?: string;
  readonly headers: Record<string, string>;
  readonly connections: number;
  readonly durationMs: number;
  readonly caFile?: string;
}

const o = JSON.parse(process.argv[2] as string) as Options;
const target = new URL(o.url);
const body = o.bodyFile ? readFileSync(o.bodyFile) : undefined;
const headers = { ...o.headers, ...(body ? { 'content-type': 'application/json' } : {}) };
const pool = new Pool(target.origin, {
  connections: o.connections,
  pipelining: 1,
  ...(o.caFile ? { connect: { ca: readFileSync(o.caFile, 'utf8') } } : {}),
});
const path = target.pathname + target.search;
const latenciesUs: number[] = [];
let bytes = 0;
let statusErrors = 0;
let otherErrors = 0;
const started = performance.now();
const deadline = started + o.durationMs;

async function loop(): Promise<void> {
  while (performance.now() < deadline) {
    const t0 = performance.now();
    try {
      const res = await pool.request({ path, method: o.method, headers, ...(body ? { body } : {}) });
      for await (const chunk of res.body) bytes += (chunk as Buffer).length;
      if (res.statusCode >= 400) statusErrors++;
      latenciesUs.push((performance.now() - t0) * 1000);
    } catch {
      otherErrors++;
    }
  }
}

await Promise.all(Array.from({ length: o.connections }, loop));
const durationUs = Math.round((performance.now() - started) * 1000);
await pool.close();
latenciesUs.sort((a, b) => a - b);
const pct = (p: number) => Math.round(latenciesUs[Math.min(latenciesUs.length - 1, Math.floor((p / 100) * latenciesUs.length))] ?? 0);
const mean = latenciesUs.reduce((a, b) => a + b, 0) / Math.max(1, latenciesUs.length);
console.log(
  `BENCH-JSON ${JSON.stringify({
    requests: latenciesUs.length,
    durationUs,
    bytes,
    connectErrors: 0,
    readErrors: otherErrors,
    writeErrors: 0,
    statusErrors,
    timeouts: 0,
    p50Us: pct(50),
    p90Us: pct(90),
    p99Us: pct(99),
    maxUs: Math.round(latenciesUs.at(-1) ?? 0),
    meanUs: Math.round(mean * 10) / 10,
  })}`,
);
