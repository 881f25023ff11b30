// A recording written as fast as the writer takes it: `events` synthetic events (half the port's, half
// the audit logs'), their times spaced as `rate` events a second would be, flushed every `flushEvery`
// events as the writer's timer would at 50,000 a second (200 ms). The wall time gives the sustained
// ingest rate; the file, the bytes per event.
import { statSync } from 'node:fs';
import { RecordingWriter } from '../../proxy-core/engine/recording/writer.js';
import type { ClusterEvent } from '../../proxy-core/contract/cluster.js';
import type { RoutingEvent } from '../../proxy-core/contract/events.js';
import { syntheticEvents } from './synthetic.js';

/** Distinct events made per source (a prime, so the two pools never line up). */
const POOL = 65_521;

export interface Ingest {
  readonly file: string;
  readonly events: number;
  readonly seconds: number;
  readonly bytes: number;
  /** Epoch ms of the first and last event. */
  readonly from: number;
  readonly to: number;
}

export function ingest(file: string, events: number, rate = 5_000, flushEvery = 10_000): Ingest {
  const startedAt = Date.UTC(2026, 10, 27, 14, 0);
  const writer = RecordingWriter.create(file, { startedAt, host: 'bench', flushEveryMs: 3_600_000 });
  // Made before the clock starts and taken in turn, their times set as they go: the figure is the writer's.
  const make = syntheticEvents();
  const routing = Array.from({ length: POOL }, () => make.routing(0));
  const cluster = Array.from({ length: POOL }, () => make.cluster(0));
  const step = 1_000 / rate;
  const began = process.hrtime.bigint();
  for (let i = 0; i < events; i++) {
    const at = startedAt + Math.floor(i * step);
    const e = i % 2 === 0 ? routing[(i >> 1) % POOL]! : cluster[(i >> 1) % POOL]!;
    e.at = at;
    if (i % 2 === 0) writer.routing(e as RoutingEvent);
    else writer.cluster(e as ClusterEvent);
    if (i % flushEvery === flushEvery - 1) writer.flush();
  }
  writer.close();
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  return { file, events, seconds, bytes: statSync(file).size, from: startedAt, to: startedAt + Math.floor(events * step) };
}
