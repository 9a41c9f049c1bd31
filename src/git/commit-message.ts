import type { ReplayStep } from '../artifacts/index.js';

/** The blocks of a step's ingest that were not written, from its manifest (`unreadable`: why none are listed). */
export interface NotWrittenBlocks {
  readonly blocks: readonly {
    readonly status: string;
    readonly declaredFile: string;
    readonly reason: string;
  }[];
  readonly unreadable?: string;
}

/** The message of a step's commit: subject, what the node wrote, skipped and rejected, then its trailers. */
export function stepCommitMessage(
  runId: string,
  step: ReplayStep,
  number: number,
  notWritten: NotWrittenBlocks = { blocks: [] },
): string {
  const written = step.artifacts.filter((artifact) => artifact.path.startsWith('workspace/'));
  const documents = step.artifacts.filter((artifact) => !artifact.path.startsWith('workspace/'));
  const skipped = step.ingest?.skipped ?? 0;
  const rejected = step.ingest?.rejected ?? 0;
  const lines = [
    `${step.taskId} (${step.agentId}): wrote ${plural(written.length, 'file')}, skipped ${skipped}, rejected ${rejected}`,
    '',
    `Step ${number} of run ${runId}: node ${step.taskId}, agent ${step.agentId}, attempt ${step.attempt}, ${step.outcome} at ${step.finishedAt}.`,
    '',
  ];
  if (written.length > 0) {
    lines.push('Written:');
    for (const artifact of written) {
      lines.push(
        `  ${artifact.path.slice('workspace/'.length)} (${artifact.change}, +${artifact.linesAdded} -${artifact.linesRemoved})`,
      );
    }
  } else lines.push('Written: none');
  for (const document of documents) lines.push(`Document: ${document.path} (${document.type})`);
  lines.push(`Skipped blocks: ${skipped}`, `Rejected blocks: ${rejected}`);
  // Each block the ingest did not write, by the path its fence declared and the manifest's reason.
  for (const block of notWritten.blocks)
    lines.push(`  ${block.status} ${oneLine(block.declaredFile || '(no file=)')}: ${oneLine(block.reason)}`);
  if (notWritten.unreadable !== undefined)
    lines.push(`  (the manifest could not be read: ${notWritten.unreadable}; replay shows the step)`);
  for (const problem of step.ingest?.problems ?? []) lines.push(`  ${oneLine(problem)}`);
  lines.push(
    '',
    `Run-Id: ${runId}`,
    `Task-Id: ${step.taskId}`,
    `Agent-Id: ${step.agentId}`,
    // write_file nodes render no prompt: the trailer still says so, so every step commit has the same keys.
    `Prompt-Sha256: ${step.promptSha256 ?? 'none'}`,
    ...step.artifacts.map((artifact) => `Artifact-Id: ${artifact.artifactId}`),
  );
  return `${lines.join('\n')}\n`;
}

/** The message of the optional root commit: the workspace as it was before the run (no Task-Id). */
export function baseCommitMessage(runId: string, files: number): string {
  return `workspace before run ${runId}\n\nThe workspace as other runs left it before run ${runId} started (${plural(files, 'file')}).\n\nRun-Id: ${runId}\n`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** A problem line of an ingest as one message line: no newline may end the body early or fake a trailer. */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').slice(0, 300);
}
