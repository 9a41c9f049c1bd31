import { replayRun } from '../../artifacts/index.js';
import type { ReplayArtifact, ReplayStep, RunReplay } from '../../artifacts/index.js';
import { readTerminal } from '../../contracts/index.js';
import { capRows } from '../render/index.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { renderTerminal } from '../render-run-report.js';
import { usingCommandProject } from '../using-command-project.js';
import { resolveRunId } from '../resolve-run-id.js';
import { UsageError } from '../usage-error.js';
import type { CliIo } from '../cli-io.js';

/** Help text of `artifact-ingest replay`. */
export const REPLAY_HELP = `Usage: artifact-ingest replay RUN_ID [--backward] [--path P] [--remote] [--project DIR] [--json]

Show a run step by step from its records, read-only: it never runs a node or changes a file.
Forward (default): each node execution in the order it finished, with its agent, rendered-prompt hash,
duration, outcome, ingest summary, and the files it created (+) or changed (~) with lines added/removed.
Steps count completed executions from 1; a failed execution shows as "step -". Versions of an
interrupted execution (no trace followed them) are listed as unfinished.

Backward: from the final state back, each version's unified diff from its previous version (a first
version is diffed from empty; binary content is named, not diffed), then the versions the run's paths
had before it.

Options:
  --backward      newest first, with diffs, ending with the paths' versions before the run
  --path P        only this path: workspace/src/a.ts, src/a.ts (inside workspace/) or docs/plan.md
  --remote        read the run from the remote the config names (docs/remote.md), not .agent/
  --project DIR   project root (default: current directory)
  --json          print the replay as JSON
  -h, --help      show this help

Exit codes: 0 shown; 2 usage, or the run or path is unknown (list runs with 'artifact-ingest runs').
`;

/** Runs `artifact-ingest replay`; returns the exit code. */
export async function replayCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('replay', args, {
    backward: { type: 'boolean' },
    path: { type: 'string' },
    project: { type: 'string' },
    remote: { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(REPLAY_HELP);
    return 0;
  }
  const [runId, ...extra] = positionals;
  if (runId === undefined || extra.length > 0) {
    throw new UsageError("replay takes exactly one RUN_ID; list them with 'artifact-ingest runs'", 'replay');
  }
  if (values.path === '') throw new UsageError('--path needs a path, such as src/a.ts', 'replay');
  const { replay, terminal } = await usingCommandProject('replay', values, io, async (project) => {
    const resolvedId = await resolveRunId(project, runId);
    return {
      replay: await replayRun(project, resolvedId, {
        backward: values.backward === true,
        ...(values.path === undefined ? {} : { path: values.path }),
      }),
      terminal: await readTerminal(project, resolvedId).catch(() => undefined),
    };
  });
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify({ ...replay, terminal: terminal ?? null }, null, 2)}\n`);
    return 0;
  }
  const rendered = renderReplay(replay, io.stdout.isTTY === true);
  // The terminal state goes under the run's header line: what a reviewer reads first.
  const headerEnd = rendered.indexOf('\n') + 1;
  const terminalLines =
    terminal === undefined ? ['terminal: - (the run has not ended)'] : renderTerminal(terminal);
  io.stdout.write(`${rendered.slice(0, headerEnd)}${terminalLines.join('\n')}\n${rendered.slice(headerEnd)}`);
  for (const problem of replay.problems) io.stderr.write(`artifact-ingest: warning: ${problem.message}\n`);
  return 0;
}

function renderReplay(replay: RunReplay, capped: boolean): string {
  const backward = replay.direction === 'backward';
  const lines: string[] = [
    [
      `run ${replay.runId}`,
      ...(replay.graph === null ? [] : [`graph ${replay.graph.name} ${replay.graph.hash.slice(0, 8)}`]),
      ...(replay.startedAt === null ? [] : [`started ${replay.startedAt}`]),
      ...(replay.path === null ? [] : [`path ${replay.path}`]),
      ...(backward ? ['backward from the final state'] : []),
    ].join('  '),
  ];
  if (replay.steps.length === 0 && replay.unfinished.length === 0) lines.push('no recorded steps');
  const unfinished = (): void => {
    if (replay.unfinished.length === 0) return;
    lines.push('', 'unfinished (interrupted: no trace followed these versions)');
    const unfinishedRows = capRows(replay.unfinished, capped);
    for (const artifact of unfinishedRows.rows) lines.push(...renderArtifact(artifact, true));
    if (unfinishedRows.more !== undefined) lines.push(`  ${unfinishedRows.more}`);
  };
  if (backward) unfinished();
  for (const step of replay.steps) lines.push('', ...renderStep(step, capped));
  if (!backward) unfinished();
  if (replay.before !== undefined) {
    lines.push('');
    const unknown = replay.problems.filter((problem) => problem.code === 'unknown_previous').length;
    if (replay.before.length === 0 && unknown === 0) {
      lines.push(`before run ${replay.runId}: no earlier versions (the run created every path it touched)`);
    } else {
      lines.push(`before run ${replay.runId}:`);
      const before = capRows(replay.before, capped);
      for (const version of before.rows)
        lines.push(
          `  ${version.path}  ${version.artifactId}  run ${version.runId}  task ${version.taskId}  ${version.createdAt}`,
        );
      if (before.more !== undefined) lines.push(`  ${before.more}`);
      // A previous version no run holds (a run imported without the one before it) is not "created by the run".
      if (unknown > 0)
        lines.push(
          `  ${unknown} earlier version(s) are in no run of this project; import the runs that made them`,
        );
    }
  }
  return `${lines.join('\n')}\n`;
}

function renderStep(step: ReplayStep, capped: boolean): string[] {
  const lines = [
    [
      `step ${step.step ?? '-'}`,
      step.taskId,
      `agent ${step.agentId}`,
      step.outcome,
      formatDuration(step.durationMs),
      step.kind === 'ingest'
        ? 'ingest'
        : `prompt ${step.promptSha256 === null ? 'none' : step.promptSha256.slice(0, 8)}`,
      ...(step.attempt > 1 ? [`attempt ${step.attempt}`] : []),
    ].join('  '),
  ];
  if (step.error !== undefined) lines.push(`  error ${step.error.code}: ${step.error.message}`);
  if (step.ingest !== undefined) {
    const { total_blocks, written, skipped, rejected } = step.ingest;
    lines.push(
      `  ingest  ${total_blocks} ${total_blocks === 1 ? 'block' : 'blocks'}: ${written} written, ${skipped} skipped, ${rejected} rejected`,
    );
  }
  const artifacts = capRows(step.artifacts, capped);
  for (const artifact of artifacts.rows) lines.push(...renderArtifact(artifact, false));
  if (artifacts.more !== undefined) lines.push(`  ${artifacts.more}`);
  return lines;
}

function renderArtifact(artifact: ReplayArtifact, withTask: boolean): string[] {
  const mark = artifact.change === 'created' ? '+' : '~';
  const task = withTask ? `  task ${artifact.taskId}` : '';
  const lines = [`  ${mark} ${artifact.path}  +${artifact.linesAdded} -${artifact.linesRemoved}${task}`];
  const { diff } = artifact;
  if (diff === undefined) return lines;
  switch (diff.kind) {
    case 'text':
      lines.push(diff.patch.replace(/\n$/, ''));
      break;
    case 'binary':
    case 'unavailable':
      lines.push(`    ${diff.message}`);
      break;
  }
  return lines;
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`;
}
