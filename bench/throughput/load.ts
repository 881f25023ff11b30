// The load generator, never the process under test: wrk (one thread, a Lua script for the POST body
// and a machine-readable summary) when it is installed, otherwise load-child.ts, a closed loop of
// undici connections in its own Node process. And the watch client, which times one watch of N
// events from the request to the last byte.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findTool } from './child-processes.js';
import { PATHS } from './objects.js';
import type { Files, Target } from './targets.js';

export type Scenario = 'get' | 'list' | 'post';

export interface LoadResult {
  readonly requests: number;
  readonly durationUs: number;
  readonly bytes: number;
  readonly connectErrors: number;
  readonly readErrors: number;
  readonly writeErrors: number;
  /** Answers with a status ≥ 400 (wrk: not 2xx or 3xx). */
  readonly statusErrors: number;
  readonly timeouts: number;
  readonly p50Us: number;
  readonly p90Us: number;
  readonly p99Us: number;
  readonly maxUs: number;
  readonly meanUs: number;
  /** CPU seconds the load generator itself used. */
  readonly loadCpuSeconds: number;
}

export interface LoadOptions {
  readonly connections: number;
  readonly durationSeconds: number;
  /** wrk threads (default 1); the undici load child always runs one process. */
  readonly threads?: number;
}

const WRK_SCRIPT = fileURLToPath(new URL('./wrk.lua', import.meta.url));
const HEADERS: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'kubectl/v1.32.4 (linux/amd64) kubernetes/bench' };

/** CPU seconds of this process's children that have been waited for (wrk and load-child, once they exit). */
function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[13]) + Number(rest[14])) / 100;
}

function safeChildrenCpu(): number {
  try {
    return childrenCpuSeconds();
  } catch {
    return 0;
  }
}

function headersFor(target: Target, files: Files): Record<string, string> {
  return target.direct ? { ...HEADERS, Authorization: `Bearer ${files.token}` } : HEADERS;
}

function parseSummary(stdout: string, what: string): Omit<LoadResult, 'loadCpuSeconds'> {
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH-JSON '));
  if (!line) throw new Error(`${what}: no summary in its output: ${stdout.slice(-500)}`);
  return JSON.parse(line.slice('BENCH-JSON '.length)) as Omit<LoadResult, 'loadCpuSeconds'>;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface LoadGenerator {
  /** What prints in the report: "wrk 4.1.0 (…)" or "undici load child". */
  readonly description: string;
  run(target: Target, scenario: Scenario, options: LoadOptions): Promise<LoadResult>;
}

/** wrk when it is on PATH, otherwise the undici load child; `bodyFile` is where the POST body is written. */
export function loadGenerator(files: Files, bodyFile: string): LoadGenerator {
  const wrk = findTool('wrk');
  return wrk ? wrkGenerator(wrk, files, bodyFile) : undiciGenerator(files, bodyFile);
}

export function wrkGenerator(wrk: string, files: Files, bodyFile: string): LoadGenerator {
  return {
    description: `wrk (${wrk}, 1 thread)`,
    async run(target, scenario, o) {
      const headers = headersFor(target, files);
      const args = [
        `-t${o.threads ?? 1}`,
        `-c${o.connections}`,
        `-d${Math.max(1, Math.round(o.durationSeconds))}s`,
        '--timeout',
        '10s',
        '-s',
        WRK_SCRIPT,
      ];
      for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
      args.push(target.url + PATHS[scenario]);
      const env = { ...process.env, BENCH_METHOD: scenario === 'post' ? 'POST' : '', BENCH_BODY_FILE: scenario === 'post' ? bodyFile : '' };
      const before = safeChildrenCpu();
      const out = await run(wrk, args, env);
      const loadCpuSeconds = safeChildrenCpu() - before;
      if (out.code !== 0) throw new Error(`wrk exited with ${out.code}: ${out.stderr.trim()}`);
      return { ...parseSummary(out.stdout, 'wrk'), loadCpuSeconds };
    },
  };
}

export function undiciGenerator(files: Files, bodyFile: string): LoadGenerator {
  return {
    description: 'undici load child (wrk not found)',
    async run(target, scenario, o) {
      const options = {
        url: target.url + PATHS[scenario],
        method: scenario === 'post' ? 'POST' : 'GET',
        ...(scenario === 'post' ? { bodyFile } : {}),
        headers: headersFor(target, files),
        connections: o.connections,
        durationMs: Math.round(o.durationSeconds * 1000),
        ...(target.direct ? { caFile: files.caFile } : {}),
      };
      const before = safeChildrenCpu();
      const out = await run(process.execPath, [join(files.buildDir, 'load-child.mjs'), JSON.stringify(options)], process.env);
      const loadCpuSeconds = safeChildrenCpu() - before;
      if (out.code !== 0) throw new Error(`load child exited with ${out.code}: ${out.stderr.trim()}`);
      return { ...parseSummary(out.stdout, 'load child'), loadCpuSeconds };
    },
  };
}

export interface WatchResult {
  readonly ms: number;
  readonly events: number;
  readonly bytes: number;
  readonly status: number;
}

/** One watch through `target`: the time from the request to the end of a stream of `expected` events. */
export function timeWatch(target: Target, files: Files, expected: number): Promise<WatchResult> {
  return new Promise((resolve, reject) => {
    const url = new URL(target.url + PATHS.watch);
    const started = performance.now();
    const options = {
      method: 'GET',
      headers: headersFor(target, files),
      agent: false as const,
      ...(target.direct ? { ca: readFileSync(files.caFile, 'utf8') } : {}),
    };
    const onResponse = (res: IncomingMessage) => {
      let events = 0;
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) events++;
      });
      res.on('end', () => {
        const ms = performance.now() - started;
        if (res.statusCode !== 200 || events !== expected)
          reject(new Error(`watch through ${target.name}: status ${res.statusCode}, ${events} of ${expected} events`));
        else resolve({ ms, events, bytes, status: res.statusCode });
      });
      res.on('error', reject);
    };
    const req = target.direct ? httpsRequest(url, options, onResponse) : httpRequest(url, options, onResponse);
    req.setTimeout(120_000, () => req.destroy(new Error(`watch through ${target.name}: no end within 120 s`)));
    req.on('error', reject);
    req.end();
  });
}
