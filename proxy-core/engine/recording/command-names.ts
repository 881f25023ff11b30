// Names the recording's commands show in their usage, apart from the code they name: the CLI
// registers every command at start and loads a command's report or export only when it runs.

/** The files `recording export` writes into its folder (export.ts). */
export const EXPORT_FILES = { events: 'events.parquet', minutes: 'minutes.parquet', changes: 'changes.parquet' } as const;

/** The flag naming the release a recording's clients are judged against (report-breaking.ts). */
export const TO_RELEASE_FLAG = '--to-release';
