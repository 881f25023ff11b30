// node:sqlite, loaded on first use. On Node 22 loading it emits "SQLite is an experimental feature"
// (on stderr, every run, before anything the user asked for); that one warning is dropped as it is
// loaded, every other warning still shows. Node 24 (the shipped one) emits none.
import type * as Sqlite from 'node:sqlite';

let loaded: typeof Sqlite | undefined;

export function sqlite(): typeof Sqlite {
  if (loaded) return loaded;
  const emit = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (text.startsWith('SQLite is an experimental feature')) return;
    return (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    // Not a static import: the warning would print before this could drop it.
    loaded = process.getBuiltinModule('node:sqlite') as typeof Sqlite;
  } finally {
    process.emitWarning = emit;
  }
  return loaded;
}
