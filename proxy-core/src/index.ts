// proxy-core's public entry: what hosts (CLI, control server, Electron main) may import.
export { createCore, type Core, type CoreOptions, type ListenAddress, type PortFilters } from './core.js';
export { PatternError } from './proxy/patterns.js';
export { emptyPortFilters, PORT_FILTER_FLAGS, type PortFilterFlag } from './proxy/port-filters.js';
export type { ServerConfig, ServerPublicInfo } from './cluster/server-config.js';
export { parsePolicy, formatPolicy, type HandlingPolicy } from './proxy/policy.js';
export type { DiscoveryMode } from '../contract/settings.js';
export { parseRouteHeader, ROUTE_HEADER } from './proxy/exchange.js';
export { createCoreService, type CoreService } from './control/service.js';
export * from './session/index.js';
export { parseSnapshot, readSnapshotFile, serializeSnapshot, writeSnapshotFile } from './snapshot/index.js';
export { fixHeapGrowth } from './util/heap-growth.js';
// The desktop app's "Receive audit events…" makes the receiver's settings itself (electron/shell/audit-webhook-setup.ts).
export { startAuditWebhook, type AuditWebhook, type AuditWebhookOptions } from './audit/webhook/receiver.js';
export { WebhookSenders } from './audit/webhook/senders.js';
export type { AuditRecord } from './audit/event.js';
export { createCertificateAuthority, issueServerCertificate } from './tls/certs.js';
