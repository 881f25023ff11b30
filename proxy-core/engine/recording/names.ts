// The recording's dictionaries: each distinct string (a server, a client's user agent, a GVR, …) and
// each distinct series (a combination of them) gets a small integer once, so an event is four integers.
// New entries wait here until the writer's next flush inserts them, in the same transaction as the
// events that use them.
import type { NameKind } from './schema.js';

export class Dictionary<T> {
  private readonly ids = new Map<string, number>();
  private pendingRows: [number, T][] = [];
  private next = 1;

  /** The id of `key`, given it now (and queued for the next flush) if new; `row` makes the stored row. */
  id(key: string, row: () => T): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.next++;
      this.ids.set(key, id);
      this.pendingRows.push([id, row()]);
    }
    return id;
  }

  get size(): number {
    return this.ids.size;
  }

  /** The entries given since the last call, oldest first. */
  takePending(): [number, T][] {
    const rows = this.pendingRows;
    this.pendingRows = [];
    return rows;
  }
}

/** One dictionary for every kind of name: ids are unique across kinds. */
export class Names {
  private readonly dictionary = new Dictionary<{ kind: NameKind; value: string }>();

  id(kind: NameKind, value: string): number {
    return this.dictionary.id(`${kind}\u0000${value}`, () => ({ kind, value }));
  }

  takePending(): [number, { kind: NameKind; value: string }][] {
    return this.dictionary.takePending();
  }
}
