// Where the app keeps its recordings, what each new one is named, and the retention settings file
// beside them. The desktop app's folder is Electron's userData/recordings (electron/main.ts gives it);
// browser mode (`peerscope demo --ui`, what `npm start` runs without Electron) uses the XDG data folder.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { retentionSchema, type Retention } from '../../contract/recordings.js';
import { RECORDING_SUFFIX } from '../../engine/recording/schema.js';
import { DEFAULT_RETENTION } from '../../engine/recording/retention.js';

export const SETTINGS_FILE = 'retention.json';

/** `$XDG_DATA_HOME/peerscope/recordings`, by default `~/.local/share/peerscope/recordings`. */
export function xdgRecordingsFolder(env: NodeJS.ProcessEnv = process.env): string {
  const data = env.XDG_DATA_HOME && env.XDG_DATA_HOME.startsWith('/') ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  return join(data, 'peerscope', 'recordings');
}

/**
 * A new recording's name, saying what and when: "demo-20261128-143205.recording.sqlite", or the kube
 * context's name in place of "demo" (characters a file name cannot safely hold become "_").
 */
export function newRecordingName(what: string, at: Date = new Date()): string {
  const time = at.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const safe =
    what
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[._]+/, '')
      .slice(0, 100) || 'cluster';
  return `${safe}-${time}${RECORDING_SUFFIX}`;
}

export interface RetentionSettings {
  readonly retention: Retention;
  /** Why the file was not used (named with the field); the defaults are in force. */
  readonly problem?: string;
}

/** The folder's retention settings; a missing file is the defaults, a broken one too, said so. */
export function readRetentionSettings(folder: string): RetentionSettings {
  const file = join(folder, SETTINGS_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { retention: DEFAULT_RETENTION };
    return {
      retention: DEFAULT_RETENTION,
      problem: `${file}: cannot be read (${(err as NodeJS.ErrnoException).code}); the defaults are used`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { retention: DEFAULT_RETENTION, problem: `${file}: not JSON (${(err as Error).message}); the defaults are used` };
  }
  const parsed = retentionSchema.safeParse(json);
  if (parsed.success) return { retention: parsed.data };
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') || '(the whole file)';
  return { retention: DEFAULT_RETENTION, problem: `${file}: ${field}: ${issue?.message ?? 'invalid'}; the defaults are used` };
}

/** Writes the settings whole (a temporary file renamed over the old), so a crash never leaves half a file. */
export function writeRetentionSettings(folder: string, retention: Retention): void {
  mkdirSync(folder, { recursive: true });
  const file = join(folder, SETTINGS_FILE);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(retention, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}
