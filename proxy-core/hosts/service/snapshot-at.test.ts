// A snapshot of a recorded moment counts the port's requests up to and including that millisecond,
// on a file the real writer wrote: whole minutes from the rollups, the moment's own minute event by event.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RoutingEvent } from '../../contract/events.js';
import { RecordingReader } from '../../engine/recording/reader.js';
import { RecordingWriter } from '../../engine/recording/writer.js';
import { routingEvent } from '../../test/routing-event.js';
import { snapshotAt } from './snapshot-at.js';

const dir = mkdtempSync(join(tmpdir(), 'snapshot-at-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const T0 = Date.UTC(2026, 10, 28, 14, 0);

/** A request the port recorded: a list handled and answered by cp-1. */
function request(at: number, outcome: RoutingEvent['outcome'] = 'local'): RoutingEvent {
  const status = outcome === 'notfound' ? 404 : 200;
  return { seq: 0, ...routingEvent({ at, handling: 'cp-1', answeredBy: 'cp-1', outcome, status }) };
}

describe('snapshotAt', () => {
  it("counts the requests of the moment's own millisecond, so a snapshot at the end holds them all", () => {
    const file = join(dir, 'moment.recording.sqlite');
    const w = RecordingWriter.create(file, { startedAt: T0, host: 'test' });
    w.change('health', 'cp-1', 'ready', T0 + 100);
    // Two minutes of rollups before the last minute, then requests in the last minute, the last two at its end.
    for (let i = 0; i < 120; i++) w.routing(request(T0 + i * 1_000));
    w.routing(request(T0 + 125_000));
    w.routing(request(T0 + 130_000, 'notfound'));
    w.routing(request(T0 + 130_000));
    w.close();
    const reader = RecordingReader.open(file);
    try {
      const { endedAt } = reader.info();
      expect(endedAt).toBe(T0 + 130_000);
      const total = (at: number) => snapshotAt(reader, at).counters.reduce((sum, c) => sum + c.count, 0);
      expect(total(endedAt)).toBe(123);
      expect(total(endedAt - 1)).toBe(121);
      expect(total(T0 + 125_000)).toBe(121);
      expect(snapshotAt(reader, endedAt).counters.find((c) => c.outcome === 'notfound')?.count).toBe(1);
    } finally {
      reader.close();
    }
  });
});
