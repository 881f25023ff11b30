// proxy-core's public entry: what hosts (CLI, UI server, Electron main) may import.
export { createCore, type Core, type CoreOptions, type ListenAddress, type PortFilters } from '../engine/core.js';
export { PatternError } from '../engine/proxy/patterns.js';
export { emptyPortFilters, PORT_FILTER_FLAGS, type PortFilterFlag } from '../engine/proxy/port-filters.js';
export { FAITHFUL_FLAG } from '../engine/proxy/port-flags.js';
export type { ServerConfig, ServerPublicInfo } from '../engine/cluster/server-config.js';
export { parsePolicy, formatPolicy, type HandlingPolicy } from '../engine/proxy/policy.js';
export type { DiscoveryMode } from '../contract/settings.js';
export { parseRouteHeader, ROUTE_HEADER } from '../engine/proxy/route-header.js';
export { createCoreService, type CoreService } from './service/service.js';
export * from './session/index.js';
export { parseSnapshot, readSnapshotFile, serializeSnapshot, writeSnapshotFile } from '../engine/snapshot/index.js';
export { fixHeapGrowth } from '../engine/util/heap-growth.js';
// The desktop app's "Receive audit events…" makes the receiver's settings itself (electron/shell/audit-webhook-setup.ts).
export { startAuditWebhook, type AuditWebhook, type AuditWebhookOptions } from '../engine/audit/webhook/receiver.js';
export { WebhookSenders } from '../engine/audit/webhook/senders.js';
export type { AuditRecord } from '../engine/audit/event.js';
export { createCertificateAuthority, issueServerCertificate } from '../engine/tls/certs.js';
