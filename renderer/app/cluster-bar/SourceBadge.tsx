// The top bar's badge saying what the screens show: the live cluster (and the event stream's state), a
// snapshot opened offline, a recorded moment or window of the session, or a recording opened from a
// file. A recording is never called "live": its session refuses every change, and the port the bar
// would name is the live session's, not the recording's.
import type { ShownRecording } from '../../../proxy-core/contract/index.js';
import type { ConnectionState } from '../../shared/transport/http.js';
import { formatClock, formatDateTime } from '../../shared/ui/format.js';

export interface Badge {
  readonly text: string;
  /** The `conn-*` class: its colour. */
  readonly kind: 'offline' | 'recording' | ConnectionState;
  readonly title?: string;
}

export interface BadgeSource {
  readonly offline: boolean;
  /** A moment or window of the recording is shown; `window` says which. */
  readonly moment: boolean;
  readonly window: boolean;
  /** The recording opened from a file, as the overview names it. */
  readonly recording: ShownRecording | undefined;
  readonly connection: ConnectionState | undefined;
}

/** The badges, in order: what is shown, then the event stream when it is not well (a recording shown over a lost stream). */
export function badgesOf(source: BadgeSource): Badge[] {
  if (source.offline) return [{ text: 'offline snapshot', kind: 'offline' }];
  const trouble = connectionBadge(source.connection);
  if (source.recording) {
    const r = source.recording;
    const badge: Badge = {
      text: `recording ${r.name}`,
      kind: 'recording',
      title: `A recording opened from a file, ${formatDateTime(r.startedAt)}–${formatClock(r.endedAt)}: read-only, no port listens for it. Back to live for the running session.`,
    };
    return trouble && trouble.kind !== 'live' ? [badge, trouble] : [badge];
  }
  if (source.moment) return [{ text: source.window ? 'recorded window' : 'recorded moment', kind: 'offline' }];
  return trouble ? [trouble] : [];
}

function connectionBadge(state: ConnectionState | undefined): Badge | undefined {
  if (!state) return undefined;
  return { text: state === 'unauthorized' ? 'token refused' : state, kind: state };
}

export function SourceBadges({ source }: { source: BadgeSource }) {
  return (
    <>
      {badgesOf(source).map((b) => (
        <span key={b.kind} className={`conn conn-${b.kind}`} role="status" title={b.title}>
          {b.text}
        </span>
      ))}
    </>
  );
}
