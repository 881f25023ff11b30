// Requests the bench makes outside the load: a sanity GET before a target is measured, and
// Peerscope's own metrics (how many requests it served locally or rerouted).
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { PATHS } from './objects.js';
import type { Files, Target } from './targets.js';

/** One GET through the target: the body must be the object, and Peerscope must say where it went. */
export async function sanityCheck(t: Target, files: Files, objectBytes: number): Promise<void> {
  const dispatcher = t.direct ? new Agent({ connect: { ca: readFileSync(files.caFile, 'utf8') } }) : undefined;
  const res = await request(t.url + PATHS.get, {
    headers: { accept: 'application/json', ...(t.direct ? { authorization: `Bearer ${files.token}` } : {}) },
    ...(dispatcher ? { dispatcher } : {}),
  });
  const body = Buffer.from(await res.body.arrayBuffer());
  await dispatcher?.close();
  if (res.statusCode !== 200 || body.length !== objectBytes)
    throw new Error(`GET through ${t.name}: status ${res.statusCode}, ${body.length} bytes (expected 200, ${objectBytes})`);
}

export async function metricsOutcomes(t: Target): Promise<Record<string, number>> {
  const res = await request(`${t.url}/.peerscope/metrics`);
  const text = await res.body.text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^peerscope_requests_total\{outcome="([^"]+)".*\} (\d+)$/gm))
    out[m[1] as string] = (out[m[1] as string] ?? 0) + Number(m[2]);
  return out;
}
