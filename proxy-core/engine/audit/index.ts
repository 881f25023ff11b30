// Audit events as a source: what every apiserver itself answered, read from its audit log.
export {
  auditRecordOf,
  auditEventSchema,
  AUDIT_API_VERSION,
  AUDIT_KIND,
  type AuditRecord,
  type AuditTarget,
  type AuditStage,
} from './event.js';
export {
  checkAuditInputs,
  collectAuditInputSpec,
  matchAuditInputs,
  parseAuditInputSpec,
  resolveAuditInputs,
  LOOPBACK_USER,
  type AuditInput,
  type AuditInputSpec,
  type AuditServer,
} from './inputs.js';
export { judgedNames, judgeByServers, judgeBySnapshot, NO_JUDGEMENT, type AuditJudgement, type JudgeServer } from './judge.js';
export { readAuditLogs, MAX_PROBLEMS_LISTED, type AuditProgress, type ReadAuditOptions } from './read-audit.js';
export { STDIN } from './read-lines.js';
export { formatAuditText, formatFinding, formatGvr } from './format.js';
export { AuditCounters } from './exposition.js';
export { clusterEventOf } from './cluster-event.js';
export { DeprecatedCalls } from './deprecated-calls.js';
export { ReleaseTimeline, type JudgedBy } from './timeline.js';
