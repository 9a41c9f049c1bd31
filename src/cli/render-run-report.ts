import { runEventsPath, runManifestsDir, runStatePath } from '../project/index.js';
import type { TerminalState } from '../contracts/index.js';
import type { RunState } from '../runtime/index.js';
import { renderTable } from './render-table.js';

/** Renders a run for a person: one row per node with its document and ingested files, totals, and where to look. */
export function renderRunReport(
  state: RunState,
  context: { ingestNote?: string; terminal?: TerminalState } = {},
): string {
  const entries = Object.entries(state.nodes);
  const rows = entries.map(([nodeId, node]) => [
    nodeId,
    node.status,
    node.output_path ?? '',
    node.ingest?.total_blocks ?? '-',
    node.ingest?.written ?? '-',
    node.ingest?.skipped ?? '-',
    node.ingest?.rejected ?? '-',
  ]);
  const sum = (pick: (n: NonNullable<RunState['nodes'][string]['ingest']>) => number): number =>
    entries.reduce((total, [, node]) => total + (node.ingest === undefined ? 0 : pick(node.ingest)), 0);
  const documents = entries.filter(([, node]) => node.output_sha256 !== undefined).length;
  rows.push([
    'total',
    `${entries.filter(([, node]) => node.status === 'completed').length}/${entries.length} completed`,
    `${documents} documents`,
    sum((i) => i.total_blocks),
    sum((i) => i.written),
    sum((i) => i.skipped),
    sum((i) => i.rejected),
  ]);

  const lines = [
    `run ${state.run_id}  graph ${state.graph.name}  mode ${state.mode}  ${state.status.toUpperCase()}`,
    `ingest: ${state.ingest_enabled ? 'on' : 'off'}${context.ingestNote === undefined ? '' : ` (${context.ingestNote})`}`,
    ...(context.terminal === undefined ? [] : renderTerminal(context.terminal)),
    '',
    renderTable(['node', 'status', 'document', 'blocks', 'written', 'skipped', 'rejected'], rows),
  ];
  const failures = entries.filter(([, node]) => node.error !== undefined);
  if (failures.length > 0) {
    lines.push(
      '',
      ...failures.map(([id, node]) => `${id}: ${node.error?.code ?? ''}: ${node.error?.message ?? ''}`),
    );
  }
  lines.push(
    '',
    `documents: docs/ (see the document column)`,
    `files:     workspace/${state.ingest_enabled ? '' : ' (ingest was off: run with --ingest to extract files)'}`,
    `manifests: ${runManifestsDir(state.run_id)}/`,
    `events:    ${runEventsPath(state.run_id)}`,
    `state:     ${runStatePath(state.run_id)}`,
  );
  if (state.status !== 'completed') lines.push(`resume:    artifact-ingest run --resume ${state.run_id}`);
  return `${lines.join('\n')}\n`;
}

/** The terminal state's lines: the state and its reason, then the artifact a reviewer reads. */
export function renderTerminal(terminal: TerminalState): string[] {
  return [
    `terminal: ${terminal.state}: ${terminal.reason}`,
    `read:     ${terminal.artifact ?? '(no artifact was submitted; see the nodes below)'}`,
  ];
}
