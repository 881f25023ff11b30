// The Live routing screen's replay (replay.ts): started on a window at a speed, played, paused and
// stopped; while one is on, the screen reads its feeds instead of the live ones.
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { CoreClient } from '../../../proxy-core/contract/index.js';
import { useView } from '../../shared/view-mode.js';
import { Replay, type FrameScheduler, type ReplaySpeed, type ReplayWindow } from './replay.js';

export interface ReplayControls {
  /** The replay on screen, or null when the screen shows the live stream. */
  readonly replay: Replay | null;
  /** Starts a new replay of `window` (the previous one, if any, stops) and plays it. */
  start(window: ReplayWindow, speed: ReplaySpeed): void;
  /** Back to the live stream. */
  stop(): void;
}

export function useReplay(
  client: Pick<CoreClient, 'getRecordedEvents'>,
  options: { frame?: FrameScheduler; now?: () => number; pageSize?: number } = {},
): ReplayControls {
  const [replay, setReplay] = useState<Replay | null>(null);
  const settings = useRef(options);
  settings.current = options;
  useEffect(() => () => replay?.close(), [replay]);
  const start = useCallback(
    (window: ReplayWindow, speed: ReplaySpeed) => {
      const next = new Replay(client, window, speed, settings.current);
      setReplay(next);
      next.play();
    },
    [client],
  );
  const stop = useCallback(() => setReplay(null), []);
  return { replay, start, stop };
}

const noSubscription = () => () => undefined;

/**
 * Live routing's replay: of the live core's recording (a moment's or window's client reads only that
 * moment), with whether it has played a cluster event yet (the screen then offers its sources).
 */
export function useScreenReplay(client: CoreClient): {
  readonly recording: CoreClient;
  readonly controls: ReplayControls;
  readonly replay: Replay | null;
  readonly replayedCluster: boolean;
} {
  const recording = useView()?.live ?? client;
  const controls = useReplay(recording);
  const replay = controls.replay;
  const replayedCluster = useSyncExternalStore(replay?.subscribe ?? noSubscription, () => replay?.getState().cluster ?? false);
  return { recording, controls, replay, replayedCluster };
}
