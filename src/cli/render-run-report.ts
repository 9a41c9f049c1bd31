import { runEventsPath, runManifestsDir, runStatePath } from '../project/index.js';
import type { TerminalState } from '../contracts/index.js';
import type { RunState } from '../runtime/index.js';
import { renderTable } from './render/index.js';

/**
 * Renders a run for a person: one row per node with its document and ingested files (written, skipped, I/O
 * errors, rejected), totals, and where to look.
 */
export function renderRunReport(
  state: RunState,
  context: { ingestNote?: string; terminal?: TerminalState } = {},
): string {
  const entries = Object.entries(state.nodes);
  const rows = entries.map(([nodeId, node]) => {
    const { ingest } = node;
    return [
      nodeId,
      node.status,
      node.output_path ?? '',
      ingest?.total_blocks ?? '-',
      ingest?.written ?? '-',
      ingest === undefined ? '-' : skippedOnly(ingest),
      ingest === undefined ? '-' : (ingest.io_errors ?? 0),
      ingest?.rejected ?? '-',
    ];
  });
  const sum = (pick: (n: NonNullable<RunState['nodes'][string]['ingest']>) => number): number =>
    entries.reduce((total, [, node]) => total + (node.ingest === undefined ? 0 : pick(node.ingest)), 0);
  const documents = entries.filter(([, node]) => node.output_sha256 !== undefined).length;
  rows.push([
    'total',
    `${entries.filter(([, node]) => node.status === 'completed').length}/${entries.length} completed`,
    `${documents} documents`,
    sum((i) => i.total_blocks),
    sum((i) => i.written),
    sum(skippedOnly),
    sum((i) => i.io_errors ?? 0),
    sum((i) => i.rejected),
  ]);

  const lines = [
    `run ${state.run_id}  graph ${state.graph.name}  mode ${state.mode}  ${state.status.toUpperCase()}`,
    `ingest: ${state.ingest_enabled ? 'on' : 'off'}${context.ingestNote === undefined ? '' : ` (${context.ingestNote})`}`,
    ...(context.terminal === undefined ? [] : renderTerminal(context.terminal)),
    '',
    renderTable(['node', 'status', 'document', 'blocks', 'written', 'skipped', 'errors', 'rejected'], rows),
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

/**
 * One warning line per node whose ingest met an I/O error (a full or read-only disk, a permission), for
 * stderr: those blocks are not written, and the table alone would show them only as a count.
 */
export function renderIngestWarnings(state: RunState): string {
  return Object.entries(state.nodes)
    .flatMap(([nodeId, node]) => {
      const ingest = node.ingest;
      if (ingest?.io_error === undefined) return [];
      const count = ingest.io_errors ?? 0;
      const what = count === 0 ? 'ingest I/O error' : `${String(count)} block(s) not written`;
      return [`artifact-ingest: warning: ${nodeId}: ${what}: ${ingest.io_error}\n`];
    })
    .join('');
}

/** Skipped blocks apart from those an I/O error stopped, which the errors column counts. */
function skippedOnly(ingest: NonNullable<RunState['nodes'][string]['ingest']>): number {
  return ingest.skipped - (ingest.io_errors ?? 0);
}

/** The terminal state's lines: the state and its reason, then the artifact a reviewer reads. */
export function renderTerminal(terminal: TerminalState): string[] {
  return [
    `terminal: ${terminal.state}: ${terminal.reason}`,
    `read:     ${terminal.artifact ?? '(no artifact was submitted; see the nodes below)'}`,
  ];
}
