// @vitest-environment jsdom
// The time control over the fake core's recording (sim-1 upgraded from v1.36 to v1.37 a minute in):
// the strip marks the release change, a moment picked before it shows every server at v1.36 and the
// matrix without skew, Live routing says it has no data then (a window's recording it shows), and "Back to
// live" returns.
import '@testing-library/jest-dom/vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PeerscopeError } from '../../../proxy-core/contract/index.js';
import { App } from '../App.js';
import { FakeCoreClient } from '../../test/fake-client.js';
import { installLayoutStubs } from '../../test/render.js';
import { timeInSpan } from './RangeFields.js';
import { stripOf } from './TimelineStrip.js';
import { formatClock } from '../../shared/ui/format.js';

const T0 = 1_700_000_000_000;
const MIN = 60_000;
const modes = () =>
  within(screen.getByRole('group', { name: 'What to show' }))
    .getAllByRole('button')
    .map((b) => `${b.textContent}${b.getAttribute('aria-pressed') === 'true' ? '*' : ''}`);

beforeAll(installLayoutStubs);
afterEach(cleanup);

const releasesShown = () =>
  within(screen.getByRole('list', { name: 'Apiservers' }))
    .getAllByRole('listitem')
    .map((li) => li.querySelector('.release')?.textContent);

describe('the time control', () => {
  it('marks each release change on the strip, and shades a server down until it is ready', () => {
    const client = new FakeCoreClient();
    const timeline = structuredClone(client.timeline!);
    timeline.servers[1]!.changes.push(
      { at: 1_700_000_070_000, kind: 'health', value: 'unreachable' },
      { at: 1_700_000_080_000, kind: 'health', value: 'ready' },
    );
    const { releases, down } = stripOf(timeline, timeline.endedAt);
    expect(releases.map((r) => r.at)).toEqual([1_700_000_060_000]);
    expect(releases[0]!.label).toMatch(/^sim-1: v1\.36 → v1\.37 at /);
    expect(down).toEqual([{ from: 1_700_000_070_000, to: 1_700_000_080_000, label: expect.stringMatching(/^sim-2 unreachable /) }]);
  });

  it('shows a moment before the upgrade in the top bar and the matrix, then goes back to live', async () => {
    const client = new FakeCoreClient();
    render(<App client={client} />);
    const slider = await screen.findByLabelText('Moment of the recording');
    expect(screen.getByRole('button', { name: 'Live' })).toHaveAttribute('aria-pressed', 'true');
    await waitFor(() => expect(releasesShown()).toEqual(['v1.37', 'v1.36', 'v1.36']));

    // Let go 30 s in: the native change event a released thumb fires.
    fireEvent.change(slider, { target: { value: String(1_700_000_030_000) } });
    const banner = await screen.findByRole('region', { name: 'Recorded moment' });
    expect(banner).toHaveTextContent(/At \d\d:\d\d:\d\d — recorded/);
    expect(client.calls).toContain('getStateAt:1700000030000');
    await waitFor(() => expect(releasesShown()).toEqual(['v1.36', 'v1.36', 'v1.36']));
    expect(await screen.findByText('0 skewed')).toBeVisible();
    expect(screen.getByRole('button', { name: 'Live' })).toHaveAttribute('aria-pressed', 'false');
    // Nothing that would change the cluster is offered at a moment.
    expect(screen.queryByRole('button', { name: 'Export snapshot' })).toBeNull();

    fireEvent.click(screen.getByRole('tab', { name: 'Live routing' }));
    expect(await screen.findByText(/Live routing has no data at a recorded moment/)).toBeVisible();

    // Another moment, after the upgrade: the same screens, read again.
    fireEvent.change(screen.getByLabelText('Moment of the recording'), { target: { value: String(1_700_000_090_000) } });
    fireEvent.click(screen.getByRole('tab', { name: 'GVR matrix' }));
    await waitFor(() => expect(releasesShown()).toEqual(['v1.37', 'v1.36', 'v1.36']));
    expect(client.calls).toContain('getStateAt:1700000090000');
    expect(screen.getByRole('region', { name: 'Recorded moment' })).toBeVisible();

    fireEvent.click(screen.getByRole('button', { name: 'Back to live' }));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Recorded moment' })).toBeNull());
    await waitFor(() => expect(releasesShown()).toEqual(['v1.37', 'v1.36', 'v1.36']));
    expect(screen.getByRole('button', { name: 'Export snapshot' })).toBeVisible();
  });

  it('is not shown for a session that records nothing', async () => {
    const client = new FakeCoreClient();
    client.timeline = undefined;
    render(<App client={client} />);
    await screen.findByRole('list', { name: 'Apiservers' });
    await waitFor(() => expect(client.calls).toContain('getRecordingTimeline'));
    expect(screen.queryByLabelText('Moment of the recording')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
    await expect(client.getStateAt({ at: 0 })).rejects.toBeInstanceOf(PeerscopeError);
  });

  it('shows the whole recording as a window: Upgrade impact and the false 404s of the window, the rest at its end', async () => {
    const client = new FakeCoreClient();
    render(<App client={client} />);
    await screen.findByLabelText('Moment of the recording');
    expect(modes()).toEqual(['Live*', '15 min', 'Whole', 'Range']);
    // At a single moment, Upgrade impact asks for a window.
    fireEvent.change(screen.getByLabelText('Moment of the recording'), { target: { value: String(T0 + 30_000) } });
    await screen.findByRole('region', { name: 'Recorded moment' });
    fireEvent.click(screen.getByRole('tab', { name: 'Upgrade impact' }));
    expect(await screen.findByText(/reads a span of the recording, not a single moment/)).toBeVisible();
    expect(client.calls.filter((c) => c.startsWith('getImpact'))).toEqual([]);

    fireEvent.click(screen.getByRole('button', { name: 'Whole' }));
    const banner = await screen.findByRole('region', { name: 'Recorded window' });
    expect(banner).toHaveTextContent(`${formatClock(T0)}–${formatClock(T0 + 2 * MIN)} — recorded window`);
    expect(banner).toHaveTextContent(/Upgrade impact and False 404s by client cover the window/);
    expect(modes()).toEqual(['Live', '15 min', 'Whole*', 'Range']);
    expect(screen.getByTestId('window-band')).toBeInTheDocument();
    // The state at the window's end (its last millisecond), the report and the false 404s over it.
    expect(client.calls.filter((c) => c.startsWith('getStateAt'))).toContain(`getStateAt:${T0 + 2 * MIN}`);
    expect(await screen.findByRole('heading', { name: 'Upgrade impact over the recorded window' })).toBeVisible();
    await waitFor(() =>
      expect(client.calls.filter((c) => c.startsWith('getImpact'))).toContain(`getImpactForWindow:${T0}-${T0 + 2 * MIN + 1}:`),
    );
    const table = await screen.findByRole('table', { name: 'False 404s by client in the window' });
    expect(within(table).getByText('kubectl')).toBeVisible();
    expect(within(table).getByText('3')).toBeVisible();
    expect(client.calls.filter((c) => c.startsWith('getFalse'))).toContain(`getFalse404sForWindow:${T0}-${T0 + 2 * MIN + 1}`);
    // Another target release is judged over the same window.
    fireEvent.change(screen.getByRole('combobox', { name: 'Target release' }), { target: { value: 'v1.36-dev' } });
    await waitFor(() => expect(client.calls).toContain(`getImpactForWindow:${T0}-${T0 + 2 * MIN + 1}:v1.36-dev`));

    // Live routing shows the window's recorded requests (none here), ready to replay it.
    Object.assign(client, { getRecordedEvents: async ({ to }: { to: number }) => ({ port: [], cluster: [], through: to, next: null }) });
    fireEvent.click(screen.getByRole('tab', { name: 'Live routing' }));
    const window = `${formatClock(T0)}–${formatClock(T0 + 2 * MIN)}`;
    expect(await screen.findByText(`Play to replay ${window} of the recording. It holds no request.`)).toBeVisible();
    expect(screen.getByRole('group', { name: 'Replay' })).toHaveTextContent(`${window} (the top bar's window)`);
    fireEvent.click(screen.getByRole('tab', { name: 'GVR matrix' }));
    await waitFor(() => expect(releasesShown()).toEqual(['v1.37', 'v1.36', 'v1.36']));

    fireEvent.click(screen.getByRole('button', { name: 'Live' }));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Recorded window' })).toBeNull());
    expect(modes()).toEqual(['Live*', '15 min', 'Whole', 'Range']);
  });

  it('shows the last 15 minutes of a longer recording', async () => {
    const client = new FakeCoreClient();
    client.timeline = { ...client.timeline!, endedAt: T0 + 40 * MIN };
    render(<App client={client} />);
    fireEvent.click(await screen.findByRole('button', { name: '15 min' }));
    await screen.findByRole('region', { name: 'Recorded window' });
    expect(modes()).toEqual(['Live', '15 min*', 'Whole', 'Range']);
    expect(screen.getByText(`${formatClock(T0 + 25 * MIN)}–${formatClock(T0 + 40 * MIN)}`)).toBeVisible();
    expect(client.calls).toContain(`getStateAt:${T0 + 40 * MIN}`);
  });

  it('takes a range typed in, and says what is wrong with one that is not in the recording', async () => {
    const client = new FakeCoreClient();
    client.timeline = { ...client.timeline!, endedAt: T0 + 40 * MIN };
    render(<App client={client} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Range' }));
    const form = screen.getByRole('form', { name: 'Window of the recording' });
    expect(within(form).getByLabelText('From')).toHaveFocus();
    fireEvent.change(within(form).getByLabelText('From'), { target: { value: formatClock(T0 + 10 * MIN) } });
    fireEvent.change(within(form).getByLabelText('To'), { target: { value: formatClock(T0 + 5 * MIN) } });
    fireEvent.click(within(form).getByRole('button', { name: 'Show' }));
    expect(within(form).getByRole('alert')).toHaveTextContent('"From" must be before "To".');
    fireEvent.change(within(form).getByLabelText('To'), { target: { value: formatClock(T0 + 50 * MIN) } });
    fireEvent.click(within(form).getByRole('button', { name: 'Show' }));
    expect(within(form).getByRole('alert')).toHaveTextContent(/"To" must be a time in the recording/);
    fireEvent.change(within(form).getByLabelText('To'), { target: { value: formatClock(T0 + 20 * MIN) } });
    fireEvent.click(within(form).getByRole('button', { name: 'Show' }));
    await screen.findByRole('region', { name: 'Recorded window' });
    expect(screen.queryByRole('form', { name: 'Window of the recording' })).toBeNull();
    expect(modes()).toEqual(['Live', '15 min', 'Whole', 'Range*']);
    // The end's whole second is in the window; the screens show the state at its last millisecond.
    expect(client.calls).toContain(`getStateAt:${T0 + 20 * MIN + 999}`);
    // Escape closes the fields without moving.
    fireEvent.click(screen.getByRole('button', { name: 'Range' }));
    fireEvent.keyDown(screen.getByLabelText('From'), { key: 'Escape' });
    expect(screen.queryByRole('form', { name: 'Window of the recording' })).toBeNull();
  });

  it('shows a recording that has ended at its end, with End in place of Live, and opens its windows', async () => {
    const client = new FakeCoreClient();
    client.timeline = { ...client.timeline!, ended: true };
    render(<App client={client} />);
    await screen.findByText(/the recording's end/);
    expect(modes()).toEqual(['End*', '15 min', 'Whole', 'Range']);
    fireEvent.click(screen.getByRole('button', { name: 'Whole' }));
    await screen.findByRole('region', { name: 'Recorded window' });
    expect(modes()).toEqual(['End', '15 min', 'Whole*', 'Range']);
  });

  it('reads a typed clock time as the moment of the recording it names, a recording past midnight included', () => {
    const start = new Date(2026, 10, 27, 23, 50, 0).getTime();
    const span = { from: start, to: start + 20 * MIN };
    expect(timeInSpan('23:55:30', span)).toBe(start + 5.5 * MIN);
    expect(timeInSpan('00:05', span)).toBe(start + 15 * MIN);
    expect(timeInSpan('12:00', span)).toBeNull();
    expect(timeInSpan('soon', span)).toBeNull();
  });
});
