import type { WorkflowCompletion, WorkflowListing, WorkflowStatusResponse } from '../../workflow/index.js';
import { renderTable } from '../render/index.js';

/**
 * A workflow status for a person: the run, the step and its type, progress, the pass, the step's contract, the
 * instructions, the next action as a command, the registered artefacts, declared versus observed and, once the
 * run ended, its terminal state.
 */
export function renderWorkflowStatus(status: WorkflowStatusResponse): string {
  const lines = [
    `workflow ${status.workflow}  run ${status.run_id}  ${status.status}`,
    `step ${String(status.step_number)}/${String(status.total_steps)}: ${status.step} (${status.stepType})  progress: ${String(status.progress.completed)}/${String(status.progress.total)} steps done`,
  ];
  const pass = passLine(status);
  if (pass !== undefined) lines.push(pass);
  if (status.agent !== null) lines.push(`agent: ${status.agent} (delegate to this sub-agent)`);
  if (status.contract !== undefined) lines.push(...contractLines(status.contract));
  if (status.terminal !== undefined) lines.push(...terminalLines(status.terminal));
  lines.push('', 'instructions:', ...indent(status.instructions), '');
  lines.push(`next: ${nextLine(status)}`);
  lines.push(
    status.artefacts.length === 0
      ? 'artefacts: none registered'
      : `artefacts (${String(status.artefacts.length)}):`,
    ...status.artefacts.map((artefact) => `  ${artefact}`),
  );
  const reconciliation = status.reconciliation;
  if (reconciliation !== undefined) {
    lines.push(
      `reconciliation: ${String(reconciliation.unregistered.length)} unregistered, ${String(reconciliation.phantom.length)} phantom`,
      ...reconciliation.unregistered.map((file) => `  unregistered  ${file}`),
      ...reconciliation.phantom.map((file) => `  phantom       ${file}`),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** What `workflow advance` prints when the workflow completes: duration, steps and the saved results. */
export function renderWorkflowCompletion(completion: WorkflowCompletion): string {
  const { summary } = completion;
  const lines = [
    `workflow ${summary.workflow}  run ${completion.run_id}  complete`,
    `${String(summary.steps_completed)} steps in ${formatDuration(summary.duration_ms)}, completed at ${summary.completed_at}`,
  ];
  const names = Object.keys(summary.results);
  lines.push(
    names.length === 0 ? 'results: none saved' : `results: ${names.join(', ')} (--json for the texts)`,
  );
  if (completion.terminal !== undefined) lines.push(...terminalLines(completion.terminal));
  return `${lines.join('\n')}\n`;
}

function contractLines(contract: NonNullable<WorkflowStatusResponse['contract']>): string[] {
  const attempts = `fix requests ${String(contract.fix_attempt)}/${String(contract.max_fix_attempts)}`;
  return [
    `contract: ${contract.type}  ${contract.state}  ${attempts}${contract.artifact === undefined ? '' : `  ${contract.artifact}`}`,
    ...(contract.reason === undefined ? [] : [`  ${contract.reason}`]),
    ...contract.errors.map((error) => `  - ${error.message}`),
  ];
}

function terminalLines(terminal: NonNullable<WorkflowStatusResponse['terminal']>): string[] {
  return [
    `terminal: ${terminal.state}  at ${terminal.at}`,
    `  read: ${terminal.artifact ?? '(no artifact)'}`,
    `  ${terminal.reason}`,
  ];
}

/**
 * The workflows `workflow list` finds: the project's `workflows/`, then the built-ins; after them, each file of
 * `workflows/` that does not load, with its error indented below it.
 */
export function renderWorkflowList(listing: WorkflowListing): string {
  const rows = listing.workflows.map((workflow) => [
    workflow.name,
    workflow.version,
    String(workflow.steps),
    workflow.inputs.length === 0 ? '-' : workflow.inputs.join(', '),
    workflow.description,
  ]);
  const table = `${renderTable(['workflow', 'version', 'steps', 'inputs', 'description'], rows)}\n`;
  if (listing.broken.length === 0) return table;
  const broken = listing.broken.flatMap((entry) => [
    `${entry.name}  ${entry.file}`,
    ...entry.error.split('\n').map((line) => `  ${line}`),
  ]);
  return `${table}\nbroken workflow files (fix or remove them; they cannot be started):\n${broken.join('\n')}\n`;
}

function passLine(status: WorkflowStatusResponse): string | undefined {
  if (status.task !== undefined)
    return `task ${String(status.task.index)}/${String(status.task.total)}: ${taskText(status.task)}`;
  if (status.ralphIteration !== undefined && status.ralphTotal !== undefined)
    return `iteration ${String(status.ralphIteration)}/${String(status.ralphTotal)}`;
  return undefined;
}

function taskText(task: NonNullable<WorkflowStatusResponse['task']>): string {
  return typeof task.value === 'string' ? task.value : JSON.stringify(task.value);
}

function nextLine(status: WorkflowStatusResponse): string {
  const { tool, expecting } = status.next_action;
  if (status.status !== 'running') return "start another with 'artifact-ingest workflow start WORKFLOW'";
  const run = status.run_id;
  // The MCP tool name is what the agent calls; the command is how a person or a script does the same.
  if (tool === 'workflow_advance') {
    return `workflow_advance with ${expecting}: artifact-ingest workflow advance ${run} --output-file FILE (or --output TEXT)`;
  }
  return `${tool} with ${expecting} (the step's next_action; from the command line: artifact-ingest workflow advance ${run} --output-file FILE)`;
}

function indent(text: string): string[] {
  return text
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => (line === '' ? '' : `  ${line}`));
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${String(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
