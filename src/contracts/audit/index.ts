export { auditArtifacts } from './audit-artifacts.js';
export type { AuditFinding, AuditFindingCode, AuditOptions, AuditReport } from './audit-artifacts.js';
