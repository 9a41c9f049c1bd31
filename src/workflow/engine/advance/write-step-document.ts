import { projectDirOf } from '../../../store/index.js';
import type { ProjectRef } from '../../../store/index.js';
import { openIngestRecords, recordFailureEvents } from '../../../artifacts/index.js';
import type { EventLog } from '../../../events/index.js';
import { concludeDocument } from '../../../ingest/index.js';
import type { BlockOutcome, DocumentIngestSummary } from '../../../ingest/index.js';
import type { NodeId } from '../../../project/index.js';
import { openConfinedRoot } from '../../../workspace/index.js';
import type { WorkflowStep } from '../../definition/index.js';
import type { WorkflowState } from '../../state/index.js';
import type { WorkflowEngineDeps } from '../workflow-engine-deps.js';
import { WorkflowError } from '../workflow-error.js';

/** A pass's document's ingest: the summary state and events keep, and every block's outcome, for the reply. */
export interface StepDocumentIngest {
  readonly summary: DocumentIngestSummary;
  readonly blocks: readonly BlockOutcome[];
}

/**
 * Writes a pass's output as its document through the ingest's `concludeDocument` (ingested when the flag is
 * on, recorded as a `message` artifact); a document the confined writer refuses is `output_not_written`.
 * Returns the ingest, or undefined when it did not run.
 */
export async function writeStepDocument(
  projectDir: ProjectRef,
  state: WorkflowState,
  step: WorkflowStep,
  docPath: string,
  output: string,
  context: {
    readonly nodeId: NodeId;
    readonly enabled: boolean;
    readonly deps: WorkflowEngineDeps;
    readonly durability: 'fsync' | 'none';
    readonly events: EventLog;
  },
): Promise<StepDocumentIngest | undefined> {
  const { deps, events } = context;
  const records = openIngestRecords({
    projectDir,
    runId: state.run_id,
    durability: context.durability,
    ...(deps.now === undefined ? {} : { now: deps.now }),
    onFailure: recordFailureEvents(events, { nodeId: context.nodeId }).report,
  });
  const root = await openConfinedRoot(projectDirOf(projectDir));
  try {
    const outcome = await concludeDocument({
      project: projectDir,
      root,
      runId: state.run_id,
      nodeId: context.nodeId,
      agentId: step.agent ?? 'workflow',
      docPath,
      text: output,
      records,
      events: events.child({ node_id: context.nodeId }),
      subject: 'step',
      ingest: {
        enabled: context.enabled,
        sourceKind: 'workflow',
        mode: 'single',
        durability: context.durability,
        ...(deps.config === undefined
          ? {}
          : { limits: deps.config.ingest.limits, parser: deps.config.ingest.parser }),
      },
    });
    if (outcome.status === 'failed') {
      throw new WorkflowError(
        'output_not_written',
        `${outcome.message}; nothing was changed: fix the path and call workflow_advance again`,
      );
    }
    return outcome.ingest === undefined
      ? undefined
      : { summary: outcome.ingest, blocks: outcome.blocks ?? [] };
  } finally {
    await root.close();
    await records.close();
  }
}
