// A long audit read's progress on a terminal: one line on standard error, redrawn in place (bytes of
// the whole, lines, requests), drawn at once and then every quarter second, cleared at the end; none
// when standard error is not a terminal, so a redirected run's output stays clean.
import type { AuditProgress } from '../../engine/audit/index.js';

const PROGRESS_EVERY_MS = 250;

export interface ProgressLine {
  readonly update: (p: AuditProgress) => void;
  readonly stop: () => void;
}

export function progressLine(stream: NodeJS.WriteStream = process.stderr): ProgressLine | undefined {
  if (!stream.isTTY) return undefined;
  let last: AuditProgress | undefined;
  let drawn = false;
  const draw = () => {
    if (!last) return;
    drawn = true;
    const share = last.bytesTotal ? ` of ${mib(last.bytesTotal)} (${Math.floor((100 * last.bytesRead) / last.bytesTotal)}%)` : '';
    stream.write(
      `\r\x1b[Kreading: ${mib(last.bytesRead)}${share}, ${last.lines} lines, ${last.requests} requests (Ctrl-C stops and prints them)`,
    );
  };
  const timer = setInterval(draw, PROGRESS_EVERY_MS);
  return {
    update: (p) => {
      last = p;
      // The first figure at once: a read shorter than the interval still says what it did.
      if (!drawn) draw();
    },
    stop: () => {
      clearInterval(timer);
      if (drawn) stream.write('\r\x1b[K');
    },
  };
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
