// @vitest-environment jsdom
// Live routing's Replay bar on the screen itself: Play at 60× feeds the screen's own table from the
// recording (the live stream's rows give way), the screen says what it replays, and Stop brings the
// live stream back.
import '@testing-library/jest-dom/vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GetRecordedEventsArgs, RecordedEventsPage } from '../../../proxy-core/contract/index.js';
import { FakeCoreClient, routingEvent } from '../../test/fake-client.js';
import { installLayoutStubs, renderWithClient } from '../../test/render.js';
import { LiveRouting } from './LiveRouting.js';

beforeAll(installLayoutStubs);
afterEach(cleanup);

const streamRows = () => [...document.querySelectorAll('.stream-scroll [role=row]')];

/** A session recorded for two minutes (the fake's timeline), 120 requests through the port in it, one a second. */
class RecordedClient extends FakeCoreClient {
  readonly inRecording = Array.from({ length: 120 }, (_, i) =>
    routingEvent(10_000 + i, {
      at: this.timeline!.startedAt + i * 1_000 + 500,
      path: `/api/v1/namespaces/shop/configmaps-${i}`,
      ...(i % 10 === 0 ? { outcome: 'rerouted' as const, handling: 'sim-2', answeredBy: 'sim-1' } : {}),
    }),
  );
  readonly pages: GetRecordedEventsArgs[] = [];
  override getRecordedEvents = async (args: GetRecordedEventsArgs): Promise<RecordedEventsPage> => {
    this.pages.push(args);
    const after = args.after?.at ?? -Infinity;
    const events = this.inRecording.filter((e) => e.at > after && e.at >= args.from && e.at < args.to).slice(0, args.limit);
    const last = events.at(-1);
    const next = last && events.length === args.limit ? { at: last.at, row: last.seq } : null;
    return { port: structuredClone(events), cluster: [], through: next?.at ?? args.to, next };
  };
}

describe('Live routing replay', () => {
  it('plays the recording into the screen at 60×, says so, and Stop returns to the live stream', async () => {
    const client = new RecordedClient();
    renderWithClient(<LiveRouting />, client);
    await screen.findByRole('table', { name: 'Requests, newest first' });
    expect(streamRows()).toHaveLength(2);
    const bar = await screen.findByRole('group', { name: 'Replay' });
    fireEvent.click(screen.getByRole('button', { name: '60×' }));
    fireEvent.click(screen.getByRole('button', { name: 'Play' }));

    // The window is the whole two minutes (less than the default 15): two seconds at 60×.
    await screen.findByText(/^Replaying \d\d:\d\d(:\d\d)?–\d\d:\d\d(:\d\d)? at 60×/);
    await waitFor(() => expect(bar).toHaveTextContent("Replayed 120 events: the window's end"), { timeout: 8_000 });
    // The screen's own table drew the recording, newest first, the live rows gone.
    await waitFor(() => expect(streamRows()[0]).toHaveTextContent('configmaps-119'));
    const paths = streamRows().map((r) => r.textContent ?? '');
    expect(paths.length).toBeGreaterThan(2);
    expect(paths.every((p) => p.includes('configmaps-'))).toBe(true);
    const numbers = paths.map((p) => Number(/configmaps-(\d+)/.exec(p)?.[1]));
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
    expect(streamRows().find((r) => r.textContent?.includes('configmaps-110'))).toHaveTextContent('→ sim-1');
    // Fetched in pages, never the whole window at once.
    expect(client.pages.every((p) => p.limit <= 10_000)).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    await waitFor(() => expect(screen.queryByText(/^Replaying /)).toBeNull());
    await waitFor(() => expect(streamRows()).toHaveLength(2));
  }, 20_000);
});
