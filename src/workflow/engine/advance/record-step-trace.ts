import type { ProjectRef } from '../../../store/index.js';
import { openIngestRecords, recordFailureEvents } from '../../../artifacts/index.js';
import type { TraceContent } from '../../../artifacts/index.js';
import type { EventLog } from '../../../events/index.js';
import type { DocumentIngestSummary } from '../../../ingest/index.js';
import { sha256Hex } from '../../../project/index.js';
import type { NodeId } from '../../../project/index.js';
import type { WorkflowStep } from '../../definition/index.js';
import type { WorkflowState } from '../../state/index.js';
import type { WorkflowReconciliation } from '../workflow-engine-deps.js';

/** What one finished pass of a step leaves for its trace record. */
export interface StepTraceInput {
  readonly projectDir: ProjectRef;
  /** The state while the pass ran. */
  readonly state: WorkflowState;
  readonly step: WorkflowStep;
  readonly nodeId: NodeId;
  readonly pass: number | undefined;
  /** The instructions the agent was given for the pass. */
  readonly instructions: string;
  readonly finishedAt: Date;
  readonly document?: { readonly path: string; readonly text: string };
  readonly ingest?: DocumentIngestSummary;
  readonly reconciliation?: WorkflowReconciliation;
  /** Why the pass did not complete: its contract's verdict (`fix_needed`, `blocked`) and reason. */
  readonly error?: { readonly code: string; readonly message: string };
  readonly durability: 'fsync' | 'none';
  readonly now?: () => Date;
  readonly events: EventLog;
}

/**
 * Records one finished pass of a workflow step as a `trace` artifact (spec workflow-mcp.md, "Declared versus
 * observed": the reconciliation is in the step's trace record); fail-open, as every recording is.
 */
export async function recordStepTrace(input: StepTraceInput): Promise<void> {
  const { state, step } = input;
  const records = openIngestRecords({
    projectDir: input.projectDir,
    runId: state.run_id,
    durability: input.durability,
    ...(input.now === undefined ? {} : { now: input.now }),
    onFailure: recordFailureEvents(input.events, { nodeId: input.nodeId }).report,
  });
  const startedAt = state.step_started_at;
  const trace: TraceContent = {
    version: 1,
    runId: state.run_id,
    nodeId: input.nodeId,
    agent: step.agent ?? 'workflow',
    graph: { name: state.workflow, hash: state.definition_hash },
    promptSha256: sha256Hex(input.instructions),
    attempt: input.pass ?? 1,
    startedAt,
    finishedAt: input.finishedAt.toISOString(),
    durationMs: Math.max(0, input.finishedAt.getTime() - Date.parse(startedAt)),
    outcome: input.error === undefined ? 'completed' : 'failed',
    ...(input.error === undefined ? {} : { error: { ...input.error } }),
    ...(input.document === undefined
      ? {}
      : {
          document: {
            path: input.document.path,
            sha256: sha256Hex(input.document.text),
            // Counted without a copy; a lone surrogate counts 3 bytes, as the U+FFFD it is written as.
            bytes: Buffer.byteLength(input.document.text, 'utf8'),
          },
        }),
    ...(input.ingest === undefined
      ? {}
      : { ingest: { ...input.ingest, problems: [...input.ingest.problems] } }),
    ...(input.reconciliation === undefined
      ? {}
      : {
          reconciliation: {
            unregistered: [...input.reconciliation.unregistered],
            phantom: [...input.reconciliation.phantom],
          },
        }),
  };
  try {
    await records.recordTrace(trace);
  } finally {
    await records.close();
  }
}
