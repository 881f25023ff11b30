// What the core feeds its recording: every routing event of the port, every event of the cluster
// source, and the timeline — each server's health, release, discovery and membership as they change,
// the route table after each discovery change, the policy and discovery mode as they are switched.
// Discovery documents and route tables are stored content-addressed: once per distinct content. Also
// each server's missing API registrations, each read of its /metrics, the rollout steps a host
// takes (feed-cluster.ts), and each server's display name (its host name) as it is first shown or changes.
import { deflateSync } from 'node:zlib';
import type { ClusterEvent } from '../../contract/cluster.js';
import type { RoutingEvent } from '../../contract/events.js';
import type { ServerSet } from '../cluster/server-set.js';
import { gvrKey } from '../discovery/types.js';
import type { RouteTable } from '../routing/route-table.js';
import { missingOn, sha256, storedMetrics } from './feed-cluster.js';
import type { ChangeKind } from './schema.js';
import { RecordingWriter } from './writer.js';

export interface RecordedParts {
  readonly telemetry: { subscribe(listener: (e: RoutingEvent) => void): () => void };
  readonly cluster?: { subscribe(listener: (e: ClusterEvent) => void): () => void } | undefined;
  readonly servers: ServerSet;
  readonly routeTable: () => RouteTable;
}

/** Where and how a session is recorded: every event, the servers' timeline and the settings' switches, flushed every 200 ms. */
export interface RecordOptions {
  /** A new file: an existing one is refused. */
  readonly file: string;
  /** What runs the session (serve, demo), stored in the file. */
  readonly host?: string;
  /** A write failed and recording stopped (the port goes on). */
  readonly onError?: (err: Error) => void;
}

export interface RecordingFeed {
  /** A switch of the port's settings (policy, discovery mode), as the host made it. */
  setting(kind: Extract<ChangeKind, 'policy' | 'discovery-mode'>, value: string): void;
  /** A rollout step as the host takes it: `subject` the server ('' for the whole rollout), `value` one line. */
  step(subject: string, value: string): void;
  /** Stops feeding and closes the file (what is queued is written). */
  close(): void;
}

/** The stored form of a server's discovery: its GVRs (the matrix) and its documents as served. */
export interface RecordedDiscovery {
  readonly gvrs: string[];
  readonly excludedGroupVersions: readonly string[];
  readonly apis: unknown;
  readonly api: unknown;
}

/** Starts recording the session into `options.file`, fed by `parts`. */
export function recordSession(options: RecordOptions, parts: RecordedParts): RecordingFeed {
  const writer = RecordingWriter.create(options.file, {
    ...(options.host ? { host: options.host } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  });
  return feedRecording(writer, parts);
}

export function feedRecording(writer: RecordingWriter, parts: RecordedParts): RecordingFeed {
  const { servers } = parts;
  const last = new Map<string, string>();
  /** Records `value` only when it differs from what was last recorded for (kind, subject). */
  const note = (kind: ChangeKind, subject: string, value: string, document?: () => Uint8Array, at = Date.now()): void => {
    const key = `${kind}\u0000${subject}`;
    if (last.get(key) === value) return;
    last.set(key, value);
    writer.change(kind, subject, value, at, document);
  };
  /** The time of each server's last /metrics read recorded: a health event that brings no new read records none. */
  const metricsRead = new Map<string, number>();
  const health = (name: string): void => {
    const s = servers.status(name);
    if (!s) return;
    note('health', name, s.health);
    if (s.displayName) note('display-name', name, s.displayName);
    if (s.gitVersion) note('release', name, s.gitVersion);
    const m = s.apiserverMetrics;
    if (m?.readAt !== undefined && metricsRead.get(name) !== m.readAt) {
      metricsRead.set(name, m.readAt);
      const { hash, json } = storedMetrics(m);
      note('metrics', name, hash, () => deflateSync(json), m.readAt);
    }
  };
  /** Every server's missing registrations: one server's legacy /apis changing can change what all of them are missing. */
  const registrations = (): void => {
    const findings = servers.missingRegistrations();
    for (const name of servers.names()) {
      const legacy = servers.discovery(name)?.legacyGroupVersions;
      if (legacy) note('registration', name, missingOn(findings, legacy));
    }
  };
  const discovery = (name: string): void => {
    const d = servers.discovery(name);
    if (d) {
      const stored: RecordedDiscovery = {
        gvrs: d.gvrs.map(gvrKey),
        excludedGroupVersions: d.excludedGroupVersions,
        apis: d.apis,
        api: d.api,
      };
      note('discovery', name, `sha256:${sha256(JSON.stringify(stored))}`, () => deflateSync(JSON.stringify(stored)));
    }
    // A failed read keeps the last document (no discovery change): its state says it went stale.
    const state = servers.status(name)?.discovery.state;
    if (state) note('discovery-state', name, state);
    const rows = JSON.stringify(
      parts
        .routeTable()
        .rows()
        .map((r) => [gvrKey(r.gvr), r.servers]),
    );
    note('route-table', '', `sha256:${sha256(rows)}`, () => deflateSync(rows));
    registrations();
  };
  const membership = (name: string, change: string): void => {
    writer.change('membership', name, change);
    health(name);
    // A server joining with a host name another has can change how that other one is told apart.
    for (const other of servers.names()) {
      const shown = servers.status(other)?.displayName;
      if (shown) note('display-name', other, shown);
    }
  };
  servers.on('health', health);
  servers.on('discovery', discovery);
  servers.on('membership', membership);
  for (const name of servers.names()) {
    health(name);
    discovery(name);
  }
  const unsubscribe = [parts.telemetry.subscribe((e) => writer.routing(e)), parts.cluster?.subscribe((e) => writer.cluster(e))];
  return {
    setting(kind, value) {
      note(kind, '', value);
    },
    step(subject, value) {
      writer.change('step', subject, value);
    },
    close() {
      servers.off('health', health);
      servers.off('discovery', discovery);
      servers.off('membership', membership);
      for (const u of unsubscribe) u?.();
      writer.close();
    },
  };
}
