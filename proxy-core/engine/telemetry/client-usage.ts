// Client usage: requests through the port counted per client (user agent × identity) × GVR × verb,
// with per-minute counts over the last hour and the apiservers' deprecation warnings. Updated once per
// request, in memory bounded by a row limit; read as plain data (contract ClientUsage) for the report.
import type { RoutingEvent } from '../../contract/events.js';
import type { ClientUsage as ClientUsageData, UsageRow } from '../../contract/impact.js';
import { identityOf } from './client-identity.js';

/** Per-minute counts reach back this many minutes (one Uint32 per minute per row). */
export const WINDOW_MINUTES = 60;
/**
 * Rows are keyed by what clients send (user agent, GVR, verb), which any client can make up: past this
 * many rows, new keys are counted under OTHER_CLIENTS per GVR and verb, in at most OTHER_CLIENTS_ROWS
 * more rows; past those, only as `untracked`. ~0.5 KiB a row of a real client; a row of made-up
 * text of the longest kept (names as below, a 256-character user agent, 4 warnings of 256) ~5 KiB.
 */
export const MAX_USAGE_ROWS = 4_000;
export const OTHER_CLIENTS_ROWS = 1_000;
export const OTHER_CLIENTS = '(other clients)';
const MAX_WARNINGS_PER_ROW = 4;
const MAX_WARNING_TEXT = 256;
/** Longer user agents are kept to this many characters (client-go's are under 200). */
export const MAX_AGENT_TEXT = 256;
/**
 * Longer names cannot be a Kubernetes API (a group is a DNS subdomain, at most 253 characters): such
 * requests are counted as untracked rather than kept.
 */
const MAX_NAME = { group: 253, version: 63, resource: 253, verb: 32 } as const;

/**
 * A copy of `s` that holds no larger string: V8 keeps a slice of a string as a view of the whole, and
 * the names cut from a request's path or user agent would keep up to 64 KiB each alive in a row.
 */
function own(s: string): string {
  return s.length < 13 ? s : Buffer.from(s, 'utf8').toString('utf8');
}
const MINUTE_MS = 60_000;

class Row {
  count = 0;
  notFound = 0;
  warned = 0;
  warnings: string[] | undefined;
  lastAt: number;
  lastMinute: number;
  readonly minutes = new Uint32Array(WINDOW_MINUTES);

  constructor(
    readonly userAgent: string,
    readonly identity: string,
    readonly group: string,
    readonly version: string,
    readonly resource: string,
    readonly verb: string,
    readonly firstAt: number,
  ) {
    this.lastAt = firstAt;
    this.lastMinute = Math.floor(firstAt / MINUTE_MS);
  }

  add(at: number, status: number, warnings: readonly string[] | undefined): void {
    this.count++;
    if (status === 404) this.notFound++;
    if (at > this.lastAt) this.lastAt = at;
    const minute = Math.floor(at / MINUTE_MS);
    if (minute > this.lastMinute) {
      // The slots of the minutes that passed without a request start from zero.
      const passed = Math.min(minute - this.lastMinute, WINDOW_MINUTES);
      for (let m = 1; m <= passed; m++) this.minutes[(this.lastMinute + m) % WINDOW_MINUTES] = 0;
      this.lastMinute = minute;
    }
    if (minute > this.lastMinute - WINDOW_MINUTES) this.minutes[minute % WINDOW_MINUTES]!++;
    if (warnings !== undefined && warnings.length > 0) this.addWarnings(warnings);
  }

  private addWarnings(values: readonly string[]): void {
    const texts = warningTexts(values);
    if (texts.length === 0) return;
    this.warned++;
    const kept = (this.warnings ??= []);
    for (const t of texts) if (kept.length < MAX_WARNINGS_PER_ROW && !kept.includes(t)) kept.push(t);
  }

  toData(nowMinute: number): UsageRow {
    const minutes: UsageRow['minutes'] = [];
    for (let m = nowMinute - WINDOW_MINUTES + 1; m <= nowMinute; m++) {
      if (m > this.lastMinute || m <= this.lastMinute - WINDOW_MINUTES) continue;
      const count = this.minutes[m % WINDOW_MINUTES]!;
      if (count > 0) minutes.push({ at: m * MINUTE_MS, count });
    }
    return {
      userAgent: this.userAgent,
      identity: this.identity,
      group: this.group,
      version: this.version,
      resource: this.resource,
      verb: this.verb,
      count: this.count,
      notFound: this.notFound,
      warned: this.warned,
      warnings: [...(this.warnings ?? [])],
      firstAt: this.firstAt,
      lastAt: this.lastAt,
      minutes,
    };
  }
}

/** The texts of `Warning: 299 - "text"` header values (several may share one value, comma-separated). */
export function warningTexts(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    for (const m of value.matchAll(/(\d{3})\s+\S+\s+"((?:[^"\\]|\\.)*)"/g)) {
      if (m[1] !== '299') continue;
      const text = (m[2] ?? '').replace(/\\(.)/g, '$1');
      out.push(text.length > MAX_WARNING_TEXT ? `${text.slice(0, MAX_WARNING_TEXT)}…` : text);
    }
  }
  return out;
}

/** What a usage row needs of a request. */
export type UsageRequest = Pick<RoutingEvent, 'at' | 'userAgent' | 'group' | 'version' | 'resource' | 'verb' | 'status'>;

export interface UsageOptions {
  /**
   * Who the credential the port adds for clients that bring none belongs to: a kubeconfig user name,
   * or a function (a token file that is re-read: its token's identity now).
   */
  readonly ownIdentity?: string | (() => string | undefined);
}

export class ClientUsage {
  /**
   * user agent → identity → "group/version/resource/verb" → row. Nested rather than one joined key: the
   * user agent (often 100+ characters) was hashed when the event ring interned it, and V8 keeps a
   * string's hash, so only the short inner key is hashed again (~340 → ~250 ns a request; npm run bench prints the figure).
   */
  private readonly byAgent = new Map<string, Map<string, Map<string, Row>>>();
  private rowCount = 0;
  private untracked = 0;
  readonly since = Date.now();

  constructor(private readonly options: UsageOptions = {}) {}

  /** Counts one request; only resource requests the port routed (not rejected ones) are counted. */
  record(e: RoutingEvent, authorization: string | undefined, warnings: readonly string[] | undefined): void {
    if (e.resource === '' || e.outcome === 'rejected') return;
    const ownIdentity = this.options.ownIdentity;
    this.recordAs(e, identityOf(authorization, typeof ownIdentity === 'function' ? ownIdentity() : ownIdentity), warnings);
  }

  /**
   * Counts one resource request of a client whose identity is already known: an audit event's user,
   * whom the apiserver authenticated (no credential to hash).
   */
  recordAs(e: UsageRequest, identity: string, warnings?: readonly string[]): void {
    if (e.resource === '') return;
    if (
      e.group.length > MAX_NAME.group ||
      e.version.length > MAX_NAME.version ||
      e.resource.length > MAX_NAME.resource ||
      e.verb.length > MAX_NAME.verb
    ) {
      this.untracked++;
      return;
    }
    const userAgent = e.userAgent.length > MAX_AGENT_TEXT ? e.userAgent.slice(0, MAX_AGENT_TEXT) : e.userAgent;
    const key = `${e.group}/${e.version}/${e.resource}/${e.verb}`;
    let row = this.byAgent.get(userAgent)?.get(identity)?.get(key);
    if (row === undefined) {
      row = this.newRow(userAgent, identity, key, e);
      if (row === undefined) {
        this.untracked++;
        return;
      }
    }
    row.add(e.at, e.status, warnings);
  }

  private newRow(userAgent: string, identity: string, key: string, e: UsageRequest): Row | undefined {
    if (this.rowCount >= MAX_USAGE_ROWS) {
      // Past the limit, new clients share one row per GVR and verb, up to a second limit.
      const other = this.byAgent.get(OTHER_CLIENTS)?.get(OTHER_CLIENTS)?.get(key);
      if (other !== undefined || this.rowCount >= MAX_USAGE_ROWS + OTHER_CLIENTS_ROWS) return other;
      userAgent = identity = OTHER_CLIENTS;
    }
    // Copies: a row outlives the request whose text its names were cut from.
    userAgent = own(userAgent);
    identity = own(identity);
    let identities = this.byAgent.get(userAgent);
    if (identities === undefined) this.byAgent.set(userAgent, (identities = new Map()));
    let rows = identities.get(identity);
    if (rows === undefined) identities.set(identity, (rows = new Map()));
    const row = new Row(userAgent, identity, own(e.group), own(e.version), own(e.resource), own(e.verb), e.at);
    rows.set(own(key), row);
    this.rowCount++;
    return row;
  }

  get size(): number {
    return this.rowCount;
  }

  data(now = Date.now()): ClientUsageData {
    const nowMinute = Math.floor(now / MINUTE_MS);
    const rows: UsageRow[] = [];
    for (const identities of this.byAgent.values())
      for (const byKey of identities.values()) for (const row of byKey.values()) rows.push(row.toData(nowMinute));
    return { since: this.since, at: now, windowMinutes: WINDOW_MINUTES, rows, untracked: this.untracked };
  }
}
