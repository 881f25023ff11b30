// Each server's own discovery, as the core last read it (discovery/fetch.ts). A failed read keeps the
// previous document, marked stale, never "serves nothing": that is how a peer that went down after
// the last read stays a candidate (rule §4.4, conformance C5/C40) while one never read is not (C7).
// Reads of one server are shared: a read asked for while one runs gets that one. A server that came
// back or changed release is re-read, and until that lands its old document is not to be trusted:
// `rereadPending` lets routing wait for it.
import { fetchServerDiscovery, type DiscoveryReader, type FetchOptions, type ServerDiscovery } from '../../discovery/fetch.js';
import { describeError } from '../server-reader.js';

export interface DiscoveryCacheOptions {
  /** A server's document changed, or became stale, or readable again. */
  readonly onChange?: (name: string) => void;
}

/** What the cache holds for one server. */
export interface CachedDiscovery {
  /** The last document read; kept when a later read fails. */
  readonly document?: ServerDiscovery;
  /** Why the latest read failed (the document, if any, is stale). */
  readonly error?: string;
  /** The read under way, if any. */
  readonly inFlight?: Promise<void>;
}

interface Entry {
  document?: ServerDiscovery;
  error?: string;
  inFlight?: Promise<void>;
  rereading?: Promise<void>;
}

export class DiscoveryCache {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  constructor(private readonly options: DiscoveryCacheOptions = {}) {}

  add(name: string): void {
    this.entries.set(name, {});
  }

  /** Drops a server's document; a read of it still running lands nowhere. */
  forget(name: string): void {
    this.entries.delete(name);
  }

  document(name: string): ServerDiscovery | undefined {
    return this.entries.get(name)?.document;
  }

  of(name: string): CachedDiscovery | undefined {
    return this.entries.get(name);
  }

  /** Reads the server's discovery (or joins the read under way). */
  refresh(name: string, reader: DiscoveryReader, options?: FetchOptions): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry || this.closed) return Promise.resolve();
    entry.inFlight ??= (async () => {
      try {
        const next = await fetchServerDiscovery(reader, entry.document, Date.now, options);
        const changed = next.contentHash !== entry.document?.contentHash || entry.error !== undefined;
        entry.document = next;
        entry.error = undefined;
        if (changed && this.current(name, entry)) this.options.onChange?.(name);
      } catch (err) {
        const first = entry.error === undefined;
        entry.error = describeError(err);
        if (first && this.current(name, entry)) this.options.onChange?.(name);
      } finally {
        entry.inFlight = undefined;
      }
    })();
    return entry.inFlight;
  }

  /** Reads again a server that came back or changed release; `rereadPending` is set until it lands. */
  reread(name: string, reader: DiscoveryReader): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    const reread = this.refresh(name, reader).finally(() => {
      if (entry.rereading === reread) entry.rereading = undefined;
    });
    entry.rereading = reread;
  }

  /**
   * Resolves when the discovery of a server that just came back (or changed release) has been read
   * again; undefined when nothing is pending. Routing waits for it rather than trust the old document.
   */
  rereadPending(name: string): Promise<void> | undefined {
    return this.entries.get(name)?.rereading;
  }

  /** Not closed, and the entry is still the server's (not forgotten, maybe added again, meanwhile). */
  private current(name: string, entry: Entry): boolean {
    return !this.closed && this.entries.get(name) === entry;
  }

  close(): void {
    this.closed = true;
  }
}
