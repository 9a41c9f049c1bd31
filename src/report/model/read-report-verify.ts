import { verifyArtifacts } from '../../artifacts/index.js';
import type { ProjectRef } from '../../store/index.js';
import { describeError, UnknownRunError } from '../../project/index.js';
import type { ReportProblem, ReportVerify } from './run-report.js';

/** `verify`'s verdict on one run, its first `maxProblems` problems; a verify that fails is itself a problem. */
export async function readReportVerify(
  project: ProjectRef,
  runId: string,
  maxProblems: number,
): Promise<{ readonly verify: ReportVerify; readonly problems: readonly ReportProblem[] }> {
  try {
    const report = await verifyArtifacts(project, { runId });
    return {
      verify: {
        ok: report.errors === 0,
        errors: report.errors,
        warnings: report.warnings,
        objects: report.objects,
        workspaceFiles: report.workspaceFiles,
        problems: report.problems.slice(0, maxProblems).map((problem) => ({
          code: problem.code,
          severity: problem.severity,
          message: problem.message,
        })),
      },
      problems: [],
    };
  } catch (error) {
    // A run without records has nothing for verify to check.
    if (error instanceof UnknownRunError) return { verify: emptyVerify(true), problems: [] };
    return {
      verify: emptyVerify(false),
      problems: [
        {
          code: 'verify_failed',
          message: `verify could not check the run (${describeError(error)}); run 'artifact-ingest verify ${runId}'`,
        },
      ],
    };
  }
}

function emptyVerify(ok: boolean): ReportVerify {
  return {
    ok,
    errors: 0,
    warnings: 0,
    objects: { checked: 0, ok: 0 },
    workspaceFiles: { checked: 0, ok: 0 },
    problems: [],
  };
}
