// What `peerscope recording report FILE` runs (recording-report.ts registers it and its flags).
import { writeFileSync } from 'node:fs';
import { buildRecordingReport } from '../../engine/recording/report.js';
import { reportHtml } from '../../engine/recording/report-html.js';
import { reportMarkdown } from '../../engine/recording/report-text.js';
import { readRecording } from './recording-read.js';
import { fail } from './usage.js';

export interface ReportFlags {
  from?: number;
  to?: number;
  toRelease?: string;
  output: 'markdown' | 'html' | 'json';
  out: string;
}

export function writeRecordingReport(file: string, flags: ReportFlags): void {
  if (flags.from !== undefined && flags.to !== undefined && flags.to <= flags.from) fail('--to must be after --from');
  const window = { ...(flags.from !== undefined ? { from: flags.from } : {}), ...(flags.to !== undefined ? { to: flags.to } : {}) };
  const options = flags.toRelease !== undefined ? { toRelease: flags.toRelease } : {};
  const report = readRecording(file, (reader) => buildRecordingReport(reader, window, options));
  const text =
    flags.output === 'json'
      ? `${JSON.stringify(report, null, 2)}\n`
      : flags.output === 'html'
        ? reportHtml(report)
        : `${reportMarkdown(report)}\n`;
  if (flags.out === '-') {
    process.stdout.write(text);
    return;
  }
  try {
    writeFileSync(flags.out, text);
  } catch (err) {
    fail(`--out ${flags.out}: ${(err as Error).message}`);
  }
  console.error(`wrote ${flags.out}: the ${flags.output} report of ${formatSpan(report.from, report.to)}`);
}

function formatSpan(from: number, to: number): string {
  return `${new Date(from).toISOString()} → ${new Date(to).toISOString()}`;
}
