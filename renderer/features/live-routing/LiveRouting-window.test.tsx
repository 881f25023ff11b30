// @vitest-environment jsdom
// Live routing under the top bar's time control, in the whole app: at a window it shows the window's
// first page of the recording (never the live stream) and its Replay plays that window; at a single
// moment it says it has no data and offers the minute up to it as a window.
import '@testing-library/jest-dom/vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterEvent, GetRecordedEventsArgs, RecordedEventsPage, RoutingEvent } from '../../../proxy-core/contract/index.js';
import { App } from '../../app/App.js';
import { formatClock } from '../../shared/ui/format.js';
import { clusterEvent, FakeCoreClient, routingEvent } from '../../test/fake-client.js';
import { installLayoutStubs } from '../../test/render.js';

beforeAll(installLayoutStubs);
afterEach(cleanup);

const T0 = 1_700_000_000_000;
const streamRows = () => [...document.querySelectorAll('.stream-scroll [role=row]')];

/**
 * The fake's two recorded minutes with traffic in them: 25 requests a second through the port (3,000,
 * more than the screen's first page) and a false 404 in the audit logs every 3 s.
 */
class RecordedClient extends FakeCoreClient {
  readonly port: RoutingEvent[] = Array.from({ length: 3_000 }, (_, i) =>
    routingEvent(50_000 + i, { at: T0 + i * 40, path: `/api/v1/namespaces/shop/configmaps-${i}` }),
  );
  readonly cluster: ClusterEvent[] = Array.from({ length: 40 }, (_, i) =>
    clusterEvent(90_000 + i, { at: T0 + i * 3_000 + 20, outcome: 'false-404', code: 404 }),
  );
  readonly pages: GetRecordedEventsArgs[] = [];
  override getRecordedEvents = async (args: GetRecordedEventsArgs): Promise<RecordedEventsPage> => {
    this.pages.push(args);
    const after = args.after?.at ?? -Infinity;
    const inPage = (e: { at: number }) => e.at > after && e.at >= args.from && e.at < args.to;
    const all = [
      ...this.port.filter(inPage).map((e) => ({ port: true, e })),
      ...this.cluster.filter(inPage).map((e) => ({ port: false, e })),
    ]
      .sort((a, b) => a.e.at - b.e.at)
      .slice(0, args.limit);
    const last = all.at(-1);
    const next = last && all.length === args.limit ? { at: last.e.at, row: last.e.seq } : null;
    return {
      port: structuredClone(all.filter((x) => x.port).map((x) => x.e as RoutingEvent)),
      cluster: structuredClone(all.filter((x) => !x.port).map((x) => x.e as ClusterEvent)),
      through: next?.at ?? args.to,
      next,
    };
  };
}

describe('Live routing at a window or a moment of the recording', () => {
  it("shows the top bar's window from the recording, then replays it at 60× inside it", async () => {
    const client = new RecordedClient();
    render(<App client={client} />);
    await screen.findByLabelText('Moment of the recording');
    fireEvent.click(screen.getByRole('button', { name: 'Whole' }));
    await screen.findByRole('region', { name: 'Recorded window' });
    fireEvent.click(screen.getByRole('tab', { name: 'Live routing' }));

    // Before Play: the window's first page (2,000 of its 3,040 events), read from the recording.
    const window = { from: T0, to: T0 + 120_000 + 1 };
    const label = `${formatClock(window.from)}–${formatClock(window.to - 1)}`;
    const banner = await screen.findByText(/^Play to replay /);
    await waitFor(() => expect(banner).toHaveTextContent(`Play to replay ${label} of the recording. Below, the window's first 2,000`));
    expect(client.pages[0]).toEqual({ ...window, limit: 2_000 });
    expect(screen.getByRole('group', { name: 'Replay' })).toHaveTextContent(`${label} (the top bar's window)`);
    // The page held audit-log events: the sources are offered, the port's rows newest first, the page's last on top.
    fireEvent.click(within(screen.getByRole('group', { name: 'Source' })).getByRole('button', { name: 'Port' }));
    await waitFor(() => expect(streamRows()[0]).toHaveTextContent(/configmaps-\d+/));
    const top = Number(/configmaps-(\d+)/.exec(streamRows()[0]!.textContent ?? '')?.[1]);
    expect(top).toBeGreaterThan(1_900);
    expect(top).toBeLessThan(2_000);
    expect(screen.queryByText(/No request has gone through the local port yet/)).toBeNull();
    expect(screen.queryByRole('button', { name: 'Pause stream' })).toBeNull();
    expect(screen.getByRole('heading', { name: /Requests per second by outcome/ })).toHaveTextContent(
      /the window's first 2,000 recorded requests, to /,
    );

    // Play at 60×: two recorded minutes in about two seconds, every event of the window, the clock inside it.
    fireEvent.click(screen.getByRole('button', { name: '60×' }));
    fireEvent.click(screen.getByRole('button', { name: 'Play' }));
    await screen.findByText(/^Replaying \d\d:\d\d(:\d\d)?–\d\d:\d\d(:\d\d)? at 60×/);
    const bar = screen.getByRole('group', { name: 'Replay' });
    const clocks: number[] = [];
    await waitFor(
      () => {
        clocks.push(Number(bar.querySelector('output')?.getAttribute('data-at')));
        expect(bar).toHaveTextContent("Replayed 3,040 events: the window's end");
      },
      { timeout: 8_000, interval: 50 },
    );
    expect(clocks.length).toBeGreaterThan(5);
    for (const clock of clocks) {
      expect(clock).toBeGreaterThanOrEqual(window.from);
      expect(clock).toBeLessThanOrEqual(window.to);
    }
    expect(client.pages.every((p) => p.from === window.from && p.to === window.to)).toBe(true);
    await waitFor(() => expect(streamRows()[0]).toHaveTextContent('configmaps-2999'));

    // Stop: the window's preview again, not the live stream.
    fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    expect(await screen.findByText(/^Play to replay /)).toBeVisible();
  }, 20_000);

  it('at a moment says it has no data, and offers the minute up to it as a window', async () => {
    const client = new RecordedClient();
    render(<App client={client} />);
    const slider = await screen.findByLabelText('Moment of the recording');
    fireEvent.change(slider, { target: { value: String(T0 + 90_000) } });
    await screen.findByRole('region', { name: 'Recorded moment' });
    fireEvent.click(screen.getByRole('tab', { name: 'Live routing' }));
    expect(await screen.findByText(/Live routing has no data at a recorded moment/)).toBeVisible();
    expect(client.pages).toEqual([]);

    fireEvent.click(screen.getByRole('button', { name: `Replay the minute up to ${formatClock(T0 + 90_000)}` }));
    await screen.findByRole('region', { name: 'Recorded window' });
    await screen.findByText(/^Play to replay /);
    await waitFor(() => expect(client.pages[0]).toEqual({ from: T0 + 30_000, to: T0 + 90_001, limit: 2_000 }));
    // 1,501 port and 20 audit-log events in that minute: all of them shown.
    await waitFor(() => expect(screen.getByText(/^Play to replay /)).toHaveTextContent('Below, all 1,521 recorded requests of the window'));

    // Playing it at 1×, another window chosen in the top bar: the replay gives way to that window.
    fireEvent.click(screen.getByRole('button', { name: '1×' }));
    fireEvent.click(screen.getByRole('button', { name: 'Play' }));
    await screen.findByText(/^Replaying .* at 1×/);
    fireEvent.click(screen.getByRole('button', { name: 'Whole' }));
    await waitFor(() => expect(screen.queryByText(/^Replaying /)).toBeNull());
    const whole = `${formatClock(T0)}–${formatClock(T0 + 120_000)}`;
    await waitFor(() => expect(screen.getByText(/^Play to replay /)).toHaveTextContent(`Play to replay ${whole} of the recording. Below,`));
    expect(screen.getByRole('group', { name: 'Replay' })).toHaveTextContent(`${whole} (the top bar's window)`);
  });
});
