// @vitest-environment jsdom
// The time control over the fake core's recording (sim-1 upgraded from v1.36 to v1.37 a minute in):
// the strip marks the release change, a moment picked before it shows every server at v1.36 and the
// matrix without skew, Live routing says it has no data then, and "Back to live" returns.
import '@testing-library/jest-dom/vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PeerscopeError } from '../../../proxy-core/contract/index.js';
import { App } from '../App.js';
import { FakeCoreClient } from '../../test/fake-client.js';
import { installLayoutStubs } from '../../test/render.js';
import { stripOf } from './TimelineStrip.js';

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
});
