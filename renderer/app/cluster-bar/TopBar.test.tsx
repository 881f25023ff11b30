// @vitest-environment jsdom
// The top bar while a recording opened from a file is shown: it names the recording where it said
// "live", offers no change (the policy read-only, no snapshot export, no simulator controls), shows
// no port (the recording has none) and the recording's counts as the whole recording's; a moment of
// it stays that recording's; the session switching back to live brings the live bar back.
import '@testing-library/jest-dom/vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionState } from '../../shared/transport/http.js';
import { App } from '../App.js';
import { FakeCoreClient } from '../../test/fake-client.js';
import { installLayoutStubs } from '../../test/render.js';
import { badgesOf, type BadgeSource } from './SourceBadge.js';

beforeAll(installLayoutStubs);
afterEach(cleanup);

const T0 = 1_700_000_000_000;
const ROLLOUT = { name: 'rollout.recording.sqlite', startedAt: T0, endedAt: T0 + 120_000 };
const live: BadgeSource = { offline: false, moment: false, window: false, recording: undefined, connection: 'live' };
const texts = (source: BadgeSource) => badgesOf(source).map((b) => b.text);

const liveConnection = (state: ConnectionState = 'live') => ({
  connection: () => state,
  onConnection: () => () => undefined,
});

describe('the top bar badge', () => {
  it('says what is shown: live, a snapshot, a recorded moment or window, a recording opened from a file', () => {
    expect(texts(live)).toEqual(['live']);
    expect(texts({ ...live, connection: 'unauthorized' })).toEqual(['token refused']);
    expect(texts({ ...live, connection: undefined })).toEqual([]);
    expect(texts({ ...live, offline: true })).toEqual(['offline snapshot']);
    expect(texts({ ...live, moment: true })).toEqual(['recorded moment']);
    expect(texts({ ...live, moment: true, window: true })).toEqual(['recorded window']);
    // A recording is never "live", at its end or at a moment of it.
    expect(texts({ ...live, recording: ROLLOUT })).toEqual(['recording rollout.recording.sqlite']);
    expect(texts({ ...live, recording: ROLLOUT, moment: true, window: true })).toEqual(['recording rollout.recording.sqlite']);
    expect(badgesOf({ ...live, recording: ROLLOUT })[0]!.title).toMatch(/read-only, no port listens for it/);
    // The event stream's trouble is still said beside it.
    expect(texts({ ...live, recording: ROLLOUT, connection: 'reconnecting' })).toEqual([
      'recording rollout.recording.sqlite',
      'reconnecting',
    ]);
  });
});

describe('the top bar while a recording opened from a file is shown', () => {
  it('names the recording, offers no change, and is live again when the session goes back to live', async () => {
    const client = new FakeCoreClient();
    client.recording = ROLLOUT;
    client.timeline = { ...client.timeline!, ended: true };
    render(<App client={client} connection={liveConnection()} />);
    const badge = await screen.findByText('recording rollout.recording.sqlite');
    expect(badge).toHaveAttribute('role', 'status');
    expect(screen.queryByText('live')).toBeNull();
    const policy = screen.getByLabelText('Handling policy');
    expect(policy).toBeDisabled();
    expect(policy.getAttribute('title')).toMatch(/^The policy recorded in rollout\.recording\.sqlite: a recording is read-only/);
    expect(screen.queryByRole('button', { name: 'Export snapshot' })).toBeNull();
    expect(screen.queryByRole('group', { name: 'Simulated rollout' })).toBeNull();
    expect(screen.queryByText('127.0.0.1:8001')).toBeNull();
    expect(screen.getByLabelText('Requests through the port over the whole recording')).toHaveAttribute(
      'title',
      'Counted over the whole recording',
    );
    expect(screen.getByText('discovery: peer-aggregated').getAttribute('title')).toMatch(/recording's port as recorded/);

    // A window of it: still that recording's, and leaving the window goes to its end, not to live.
    fireEvent.click(screen.getByRole('button', { name: 'Whole' }));
    const window = await screen.findByRole('region', { name: 'Recorded window' });
    expect(screen.getByText('recording rollout.recording.sqlite')).toBeVisible();
    expect(await screen.findByLabelText('Handling policy')).toBeDisabled();
    fireEvent.click(await screen.findByRole('button', { name: "Back to the recording's end" }));
    await waitFor(() => expect(window).not.toBeInTheDocument());
    expect(screen.getByText('recording rollout.recording.sqlite')).toBeVisible();

    // Back to live: the session switches, the bar reads the live overview again.
    client.recording = undefined;
    client.timeline = { ...client.timeline!, ended: false };
    act(() => client.emit({ type: 'session', id: '2', label: 'simulated cluster' }));
    expect(await screen.findByText('live')).toHaveAttribute('role', 'status');
    await waitFor(() => expect(screen.getByLabelText('Handling policy')).toBeEnabled());
    expect(screen.queryByText(/^recording /)).toBeNull();
    expect(screen.getByRole('button', { name: 'Export snapshot' })).toBeVisible();
    expect(screen.getByText('127.0.0.1:8001')).toBeVisible();
  });

  it('at a moment of the session itself, says "recorded moment" and keeps "Back to live"', async () => {
    const client = new FakeCoreClient();
    render(<App client={client} connection={liveConnection()} />);
    await screen.findByText('live');
    fireEvent.change(await screen.findByLabelText('Moment of the recording'), { target: { value: String(T0 + 30_000) } });
    await screen.findByRole('region', { name: 'Recorded moment' });
    expect(screen.getByText('recorded moment')).toHaveAttribute('role', 'status');
    expect(screen.queryByText('live')).toBeNull();
    expect((await screen.findByLabelText('Handling policy')).getAttribute('title')).toBe(
      'The policy recorded then: back to live to change it',
    );
    expect(screen.getByRole('button', { name: 'Back to live' })).toBeVisible();
  });
});
