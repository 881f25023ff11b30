// The server list of a server set: which apiservers the core routes between, and the core's own
// reader of each. It follows the cluster (sync): a server found anew joins; one found at another
// address or with other TLS settings gets a new reader; one that left is marked gone (kept, with its
// reason, so its last document still names it) and dropped after a retention period
// (docs/decisions.md). Health, discovery and metrics of each server live in the units beside this
// one; the set tells them what changed through `onChange`, in the order it happened.
import { PeerscopeError } from '../../../contract/errors.js';
import { AgentServerReader } from '../server-reader.js';
import type { ServerConfig, ServerUpdate } from '../server-config.js';
import { sameTransport } from '../../upstream/pool.js';

export type MembershipChange = 'added' | 'gone' | 'back' | 'removed' | 'changed';

export const DEFAULT_GONE_RETENTION_MS = 10 * 60_000;

/** Why and when a server left the cluster, and when it leaves the list. */
export interface GoneRecord {
  readonly at: number;
  readonly reason: string;
  readonly removeAt: number;
}

export interface Member {
  readonly config: ServerConfig;
  readonly reader: AgentServerReader;
  /** Set while the server is gone from the cluster. */
  readonly gone?: GoneRecord;
}

export interface MembershipOptions {
  readonly timeoutMs: number;
  /** Connect timeout (TCP + TLS) of the readiness probe's own connection (AgentServerReader.probe). */
  readonly probeConnectTimeoutMs?: number;
  readonly goneRetentionMs?: number;
  /** Told of every change, synchronously and in order (the first servers are not "added"). */
  readonly onChange?: (name: string, change: MembershipChange) => void;
}

interface Entry {
  config: ServerConfig;
  reader: AgentServerReader;
  gone?: GoneRecord & { timer: NodeJS.Timeout };
}

export interface SyncResult {
  added: string[];
  gone: string[];
  back: string[];
}

export class Membership {
  private readonly entries = new Map<string, Entry>();
  private readonly goneRetentionMs: number;
  private closed = false;

  constructor(
    servers: readonly ServerConfig[],
    private readonly options: MembershipOptions,
  ) {
    this.goneRetentionMs = options.goneRetentionMs ?? DEFAULT_GONE_RETENTION_MS;
    for (const s of servers) this.add(s);
  }

  private add(config: ServerConfig): void {
    if (this.entries.has(config.name)) throw new PeerscopeError('PEERSCOPE_ERR_INPUT', `two servers are named "${config.name}"`);
    this.entries.set(config.name, {
      config,
      reader: new AgentServerReader(config, this.options.timeoutMs, this.options.probeConnectTimeoutMs),
    });
  }

  /** Every server in the list, gone ones included. */
  names(): string[] {
    return [...this.entries.keys()];
  }

  member(name: string): Member | undefined {
    const e = this.entries.get(name);
    if (!e) return undefined;
    if (!e.gone) return { config: e.config, reader: e.reader };
    const { at, reason, removeAt } = e.gone;
    return { config: e.config, reader: e.reader, gone: { at, reason, removeAt } };
  }

  /** The servers in the cluster now (gone ones left out). */
  inService(): Member[] {
    return [...this.entries.values()].filter((e) => !e.gone).map((e) => ({ config: e.config, reader: e.reader }));
  }

  isGone(name: string): boolean {
    return this.entries.get(name)?.gone !== undefined;
  }

  /**
   * Applies a refresh of the server list: a new server joins, a gone one that is found again comes
   * back, a known one at another address or with other TLS settings is reconnected, and the servers
   * named in `update.gone` are marked gone. Any other server is kept as it is: a refresh that could
   * not read a list says nothing about the servers it lists.
   */
  sync(update: ServerUpdate): SyncResult {
    const out: SyncResult = { added: [], gone: [], back: [] };
    if (this.closed) return out;
    for (const config of update.servers) {
      const entry = this.entries.get(config.name);
      if (!entry) {
        this.add(config);
        out.added.push(config.name);
        this.notify(config.name, 'added');
        continue;
      }
      const moved = !sameEndpoint(entry.config, config);
      if (moved) {
        const old = entry.reader;
        entry.reader = new AgentServerReader(config, this.options.timeoutMs, this.options.probeConnectTimeoutMs);
        void old.close().catch(() => undefined);
      }
      entry.config = config;
      if (entry.gone) {
        clearTimeout(entry.gone.timer);
        entry.gone = undefined;
        out.back.push(config.name);
        this.notify(config.name, 'back');
      } else if (moved) {
        this.notify(config.name, 'changed');
      }
    }
    for (const [name, reason] of update.gone) {
      if (this.markGone(name, reason)) out.gone.push(name);
    }
    return out;
  }

  private markGone(name: string, reason: string): boolean {
    const entry = this.entries.get(name);
    if (!entry || entry.gone || this.closed) return false;
    const at = Date.now();
    const timer = setTimeout(() => this.remove(name), this.goneRetentionMs).unref();
    entry.gone = { at, reason, removeAt: at + this.goneRetentionMs, timer };
    this.notify(name, 'gone');
    return true;
  }

  private remove(name: string): void {
    const entry = this.entries.get(name);
    if (!entry?.gone || this.closed) return;
    this.entries.delete(name);
    void entry.reader.close().catch(() => undefined);
    this.notify(name, 'removed');
  }

  private notify(name: string, change: MembershipChange): void {
    this.options.onChange?.(name, change);
  }

  /** Stops the retention timers and closes every reader (once: a second call does nothing). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const e of this.entries.values()) if (e.gone) clearTimeout(e.gone.timer);
    await Promise.all([...this.entries.values()].map((e) => e.reader.close()));
  }
}

/** Two configs the core's reads reach the same way: the data path's own test (upstream/pool.ts). */
export const sameEndpoint: (a: ServerConfig, b: ServerConfig) => boolean = sameTransport;
