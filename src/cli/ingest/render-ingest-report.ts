import type { IngestResult } from '../../ingest/index.js';
import { runEventsPath, runManifestsDir } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { capRows, renderTable } from '../render/index.js';

/**
 * Renders ingest results for a person: each block with its manifest status and reason, and a line under it per
 * warning (capped per document with `capRows`, for a terminal), then the summary table (the manifests' own counts)
 * and, under it, the skipped and rejected blocks counted by reason code (`skipped: 2 unchanged, 1 unterminated`).
 */
export function renderIngestReport(
  results: readonly IngestResult[],
  context: { runId: RunId; dryRun: boolean; capRows?: boolean },
): string {
  const lines: string[] = [];
  if (context.dryRun) lines.push('DRY RUN: nothing was written.', '');
  for (const result of results) {
    const { manifest } = result;
    lines.push(`${manifest.source.doc_path}  (node ${manifest.node_id})`);
    if (manifest.artifacts.length === 0) lines.push('  no file= blocks');
    const blocks = capRows(manifest.artifacts, context.capRows === true);
    for (const artifact of blocks.rows) {
      const target =
        artifact.workspace_path === '' ? artifact.declared_file || '(no path)' : artifact.workspace_path;
      const detail =
        artifact.status === 'written' && !context.dryRun ? `${artifact.bytes} B` : artifact.reason;
      lines.push(`  ${artifact.status.padEnd(9)} ${target}${detail === '' ? '' : `  ${detail}`}`);
      for (const warning of artifact.warnings ?? []) lines.push(`  ${'warning'.padEnd(9)} ${warning}`);
    }
    if (blocks.more !== undefined) lines.push(`  ${blocks.more}`);
    for (const problem of result.problems) lines.push(`  error     ${problem.code}: ${problem.message}`);
    lines.push('');
  }

  const rows = results.map((result) => {
    const { summary, source } = result.manifest;
    return [
      source.doc_path,
      summary.total_blocks,
      summary.written,
      summary.skipped,
      summary.rejected,
      result.problems.length,
    ];
  });
  const total = (column: number): number => rows.reduce((sum, row) => sum + Number(row[column]), 0);
  if (rows.length > 1) rows.push(['total', total(1), total(2), total(3), total(4), total(5)]);
  lines.push(
    renderTable(
      ['document', 'blocks', context.dryRun ? 'would write' : 'written', 'skipped', 'rejected', 'errors'],
      rows,
    ),
  );
  for (const status of ['skipped', 'rejected'] as const) {
    const reasons = countReasons(results, status);
    if (reasons !== '') lines.push(`${status}: ${reasons}`);
  }

  if (!context.dryRun) {
    lines.push(
      '',
      `manifests: ${runManifestsDir(context.runId)}/`,
      `events:    ${runEventsPath(context.runId)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The blocks of one status across every document, counted by reason code, most frequent first; the entry that
 * stands for the candidates past `max_blocks` counts each of them, as the manifest's summary does.
 */
function countReasons(results: readonly IngestResult[], status: 'skipped' | 'rejected'): string {
  const counts = new Map<string, number>();
  for (const block of results.flatMap((result) => result.blocks)) {
    if (block.status !== status || block.code === null) continue;
    counts.set(block.code, (counts.get(block.code) ?? 0) + (block.omitted?.count ?? 1));
  }
  return [...counts]
    .sort(([a, left], [b, right]) => right - left || a.localeCompare(b))
    .map(([code, count]) => `${String(count)} ${code}`)
    .join(', ');
}
