import path from 'node:path';
import type { Project } from '../../store/index.js';
import { auditArtifacts, MAX_ARTIFACT_BYTES, validateArtifactText } from '../../contracts/index.js';
import type { AuditFinding } from '../../contracts/index.js';
import { contractArtifactPath, describeError, UnknownRunError } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { listJsonFiles } from './list-json-files.js';
import { utf8PrefixEnd } from './utf8-prefix-end.js';
import type { ReportContract, ReportProblem } from './run-report.js';

/**
 * The run's contract artifacts under `.agent/artifacts/<run_id>/`, each validated against its type (the file name)
 * and with `audit`'s findings on it; what cannot be read is a problem, never a throw.
 */
export async function readReportContracts(
  project: Project,
  runId: RunId,
  maxPayloadBytes: number,
): Promise<{ readonly contracts: readonly ReportContract[]; readonly problems: readonly ReportProblem[] }> {
  const folder = path.posix.dirname(contractArtifactPath(runId, 'x'));
  const problems: ReportProblem[] = [];
  const listed = await listJsonFiles(project, folder);
  if ('error' in listed) {
    return {
      contracts: [],
      problems: [
        { code: 'unreadable_contracts', message: `cannot list ${folder}: ${describeError(listed.error)}` },
      ],
    };
  }
  const findings = await auditFindings(project, runId, problems);
  const contracts: ReportContract[] = [];
  for (const name of listed.names) {
    const type = name.slice(0, -'.json'.length);
    const where = `${folder}/${name}`;
    const mine = findings
      .filter((finding) => finding.path === where)
      .map((finding) => ({ code: finding.code, message: finding.message }));
    let text: string;
    try {
      const stored = await project.store.readText(where);
      if (stored === undefined) throw new Error('it was removed while the report was read');
      text = stored;
    } catch (error) {
      contracts.push({ type, path: where, valid: false, errors: [], findings: mine, payload: null });
      problems.push({
        code: 'unreadable_contract',
        message: `cannot read ${where}: ${describeError(error)}`,
      });
      continue;
    }
    const validation = validateArtifactText(type, text);
    contracts.push({
      type,
      path: where,
      valid: validation.ok,
      errors: validation.ok ? [] : validation.errors.map((error) => ({ ...error, got: error.got ?? null })),
      findings: mine,
      payload: cutText(text, Math.min(maxPayloadBytes, MAX_ARTIFACT_BYTES)),
    });
  }
  return { contracts, problems };
}

/** `audit`'s findings on the run; a failed audit is a problem, and the contracts are shown without findings. */
async function auditFindings(
  project: Project,
  runId: RunId,
  problems: ReportProblem[],
): Promise<readonly AuditFinding[]> {
  try {
    return (await auditArtifacts({ projectDir: project, runId })).findings;
  } catch (error) {
    if (error instanceof UnknownRunError) return [];
    problems.push({
      code: 'audit_failed',
      message: `audit of the contract artifacts failed (${describeError(error)}); run 'artifact-ingest audit ${runId}'`,
    });
    return [];
  }
}

/** `text` cut at `maxBytes` of UTF-8 without splitting a character. */
function cutText(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.byteLength <= maxBytes) return text;
  return bytes.subarray(0, utf8PrefixEnd(bytes, maxBytes)).toString('utf8');
}
