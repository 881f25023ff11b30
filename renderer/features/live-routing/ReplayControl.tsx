// The Replay control of Live routing: the window (the top bar's, when it has one; else its own, the
// recording's last 15 minutes by default), the speed, play / pause / stop, and the replayed clock.
// While a replay plays, the screen says so plainly above its chart.
import { useQuery } from '@tanstack/react-query';
import { useState, useSyncExternalStore } from 'react';
import type { CoreClient } from '../../../proxy-core/contract/index.js';
import { formatClock } from '../../shared/ui/format.js';
import { useTimeWindow } from '../../shared/view-mode.js';
import { REPLAY_SPEEDS, type Replay, type ReplaySpeed, type ReplayWindow } from './replay.js';
import type { ReplayControls } from './use-replay.js';
import type { PreviewState } from './window-preview.js';

const DEFAULT_SPAN_MS = 15 * 60_000;

/** A window as the top bar writes it: its first and last millisecond's clock (`to` is exclusive). */
export function formatWindow(window: ReplayWindow): string {
  return `${formatClock(window.from)}–${formatClock(window.to - 1)}`;
}

/** "14:30" for a whole minute, "14:30:05" otherwise. */
function clockLabel(at: number): string {
  const text = formatClock(at);
  return text.endsWith(':00') ? text.slice(0, 5) : text;
}

export function replayTitle(window: ReplayWindow, speed: ReplaySpeed): string {
  return `Replaying ${clockLabel(window.from)}–${clockLabel(window.to)} at ${speed}×`;
}

/** For a datetime-local input: local time to the second. */
function localInput(at: number): string {
  const d = new Date(at - new Date(at).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 19);
}

function fromLocalInput(text: string): number {
  return new Date(text).getTime();
}

/** Nothing when the session records nothing (or the screen is rendered alone without a recording). */
export function ReplayControl({ client, controls }: { client: Pick<CoreClient, 'getRecordingTimeline'>; controls: ReplayControls }) {
  const replay = controls.replay;
  // The recording grows while the session runs: its last minutes are read again while no replay is on.
  const timeline = useQuery({
    queryKey: ['replay-timeline'],
    queryFn: () => client.getRecordingTimeline(),
    retry: false,
    refetchInterval: (query) => (replay || query.state.data === null ? false : 5_000),
  });
  const shared = useTimeWindow();
  const [own, setOwn] = useState<ReplayWindow | null>(null);
  const [speed, setSpeed] = useState<ReplaySpeed>(10);
  const t = timeline.data;
  if (!t) return null;
  const fallback = { from: Math.max(t.startedAt, t.endedAt - DEFAULT_SPAN_MS), to: Math.max(t.endedAt, t.startedAt + 1_000) };
  // While a replay is on, the window it plays.
  const window = replay?.getState().window ?? shared ?? own ?? fallback;
  const choose = (s: ReplaySpeed) => {
    setSpeed(s);
    replay?.setSpeed(s);
  };
  return (
    <div
      className="card replay-control"
      role="group"
      aria-label="Replay"
      data-from={window.from}
      data-to={window.to}
      style={{ display: 'flex', flexWrap: 'wrap', gap: '0.75rem', alignItems: 'center' }}
    >
      <strong>Replay the recording</strong>
      {shared ? (
        <span className="muted">{formatWindow(window)} (the top bar&apos;s window)</span>
      ) : (
        <>
          <label className="muted">
            from{' '}
            <input
              type="datetime-local"
              step={1}
              aria-label="Replay from"
              disabled={replay !== null}
              value={localInput(window.from)}
              onChange={(e) => setOwn({ from: fromLocalInput(e.target.value), to: window.to })}
            />
          </label>
          <label className="muted">
            to{' '}
            <input
              type="datetime-local"
              step={1}
              aria-label="Replay to"
              disabled={replay !== null}
              value={localInput(window.to)}
              onChange={(e) => setOwn({ from: window.from, to: fromLocalInput(e.target.value) })}
            />
          </label>
        </>
      )}
      <div className="source-switch" role="group" aria-label="Replay speed">
        {REPLAY_SPEEDS.map((s) => (
          <button key={s} type="button" className="btn" aria-pressed={speed === s} onClick={() => choose(s)}>
            {s}×
          </button>
        ))}
      </div>
      {replay ? (
        <Playing replay={replay} stop={controls.stop} />
      ) : (
        <button
          type="button"
          className="btn btn-primary"
          disabled={!(window.to > window.from)}
          onClick={() => controls.start(window, speed)}
        >
          Play
        </button>
      )}
    </div>
  );
}

function Playing({ replay, stop }: { replay: Replay; stop: () => void }) {
  const state = useSyncExternalStore(replay.subscribe, replay.getState);
  const playing = state.status === 'playing';
  return (
    <>
      <button
        type="button"
        className="btn"
        disabled={state.status === 'ended' || state.status === 'error'}
        onClick={() => (playing ? replay.pause() : replay.play())}
      >
        {playing ? 'Pause' : 'Play'}
      </button>
      <button type="button" className="btn" onClick={stop}>
        Stop
      </button>
      <output className="mono" aria-label="Replayed time" data-at={state.clock}>
        {formatClock(state.clock)}
      </output>
      <span className="muted" role="status">
        {state.status === 'error'
          ? `Replay stopped: ${state.error ?? 'the recording could not be read'}`
          : state.status === 'ended'
            ? `Replayed ${state.played.toLocaleString()} events: the window's end`
            : state.waiting
              ? 'reading the recording…'
              : `${state.played.toLocaleString()} events replayed${playing ? '' : ', paused'}`}
      </span>
    </>
  );
}

/** The line above the chart while a replay is on: what is shown, at what speed. */
export function ReplayBanner({ replay }: { replay: Replay }) {
  const state = useSyncExternalStore(replay.subscribe, () => replay.getState().speed);
  return (
    <p className="replay-banner" role="status" style={{ fontWeight: 600 }}>
      {replayTitle(replay.getState().window, state)}: the chart, table and counters below show the recording, not the live stream.
    </p>
  );
}

/** What the preview of a window shows, for the chart's heading: part of the window or all of it. */
export function previewExtent(state: PreviewState): string {
  const n = state.shown.toLocaleString();
  return state.whole
    ? `(all ${n} recorded ${state.shown === 1 ? 'request' : 'requests'} of the window)`
    : `(the window's first ${n} recorded requests, to ${formatClock(state.through)})`;
}

/** The line above the chart while the top bar's window is shown before Play: what is shown, and how to replay it. */
export function PreviewBanner({ window, state }: { window: ReplayWindow; state: PreviewState | null }) {
  const shown =
    state?.status !== 'ready'
      ? ''
      : state.shown === 0
        ? ' It holds no request.'
        : ` Below, ${previewExtent(state).slice(1, -1)}: the recording, not the live stream.`;
  return (
    <p className="replay-banner" role="status" style={{ fontWeight: 600 }}>
      Play to replay {formatWindow(window)} of the recording.{shown}
    </p>
  );
}
