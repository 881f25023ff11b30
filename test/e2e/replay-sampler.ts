// The Replay bar of Live routing, sampled in the page every animation frame (Chromium tests): the
// replayed clock, the table's top rows and the status line, as the operator would see them play.
import type { Page } from 'playwright-core';

export interface Sample {
  /** performance.now() in the page. */
  wall: number;
  clock: number;
  /** The times the table's rows show, top first (HH:MM:SS.mmm). */
  rows: string[];
  status: string;
}

/**
 * In the page: clicks `button` and samples the replayed clock and the table's top rows every
 * animation frame, until the status line says the replay ended or the clock reaches `pauseAt` (then
 * clicks Pause).
 */
export function sampleReplay(page: Page, button: string, pauseAtShare: number): Promise<Sample[]> {
  return page.getByRole('group', { name: 'Replay', exact: true }).evaluate(
    (group, { button, pauseAtShare }) =>
      new Promise<Sample[]>((resolve) => {
        const doc = group.ownerDocument;
        const frameAfter = (f: () => void) => doc.defaultView!.requestAnimationFrame(f);
        const click = (name: string) => [...group.querySelectorAll('button')].find((b) => b.textContent?.trim() === name)!.click();
        const samples: Sample[] = [];
        click(button);
        const began = performance.now();
        const frame = () => {
          const clock = Number(group.querySelector('output')?.getAttribute('data-at') ?? NaN);
          const status = group.querySelector('span[role=status]')?.textContent ?? '';
          const rows = [...doc.querySelectorAll('.stream-scroll [role=row]')]
            .slice(0, 5)
            .map((r) => r.querySelector('[role=cell]')?.textContent ?? '');
          samples.push({ wall: performance.now(), clock, rows, status });
          if (/the window's end/.test(status) || performance.now() - began > 20_000) return resolve(samples);
          // The window the replay plays, as the bar shows it once the replay is on.
          const [from, to] = [Number(group.getAttribute('data-from')), Number(group.getAttribute('data-to'))];
          if (clock >= from + (to - from) * pauseAtShare) {
            click('Pause');
            return resolve(samples);
          }
          frameAfter(frame);
        };
        frameAfter(frame);
      }),
    { button, pauseAtShare },
  );
}

/** "14:30:05.123" on the day of `near` (local time, as the page shows it) → epoch ms. */
export function timeOf(text: string, near: number): number {
  const d = new Date(near);
  const [h, m, s] = text.split(':');
  d.setHours(Number(h), Number(m), Math.floor(Number(s)), Math.round((Number(s) % 1) * 1000));
  return d.getTime();
}
