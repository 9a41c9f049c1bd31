import type { IngestResult } from '../ingest/index.js';
import { runEventsPath, runManifestsDir } from '../project/index.js';
import type { RunId } from '../project/index.js';
import { capRows } from './cap-rows.js';
import { renderTable } from './render-table.js';

/**
 * Renders ingest results for a person: each block with its status and reason, and a line under it per warning
 * (capped per document with `capRows`, for a terminal), then the summary table.
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
    // The cap keeps a prefix, so a row's index is its block's index in result.blocks.
    for (const [index, artifact] of blocks.rows.entries()) {
      const target =
        artifact.workspace_path === '' ? artifact.declared_file || '(no path)' : artifact.workspace_path;
      const status = result.blocks[index]?.code === 'unchanged' ? 'unchanged' : artifact.status;
      const detail =
        artifact.status === 'written' && !context.dryRun ? `${artifact.bytes} B` : artifact.reason;
      lines.push(`  ${status.padEnd(9)} ${target}${detail === '' ? '' : `  ${detail}`}`);
      for (const warning of artifact.warnings ?? []) lines.push(`  ${'warning'.padEnd(9)} ${warning}`);
    }
    if (blocks.more !== undefined) lines.push(`  ${blocks.more}`);
    for (const problem of result.problems) lines.push(`  error     ${problem.code}: ${problem.message}`);
    lines.push('');
  }

  const rows = results.map((result) => {
    const { summary, source } = result.manifest;
    const unchanged = result.blocks.filter((block) => block.code === 'unchanged').length;
    return [
      source.doc_path,
      summary.total_blocks,
      summary.written,
      unchanged,
      summary.skipped - unchanged,
      summary.rejected,
      result.problems.length,
    ];
  });
  const total = (column: number): number => rows.reduce((sum, row) => sum + Number(row[column]), 0);
  if (rows.length > 1) rows.push(['total', total(1), total(2), total(3), total(4), total(5), total(6)]);
  lines.push(
    renderTable(
      [
        'document',
        'blocks',
        context.dryRun ? 'would write' : 'written',
        'unchanged',
        'skipped',
        'rejected',
        'errors',
      ],
      rows,
    ),
  );

  if (!context.dryRun) {
    lines.push(
      '',
      `manifests: ${runManifestsDir(context.runId)}/`,
      `events:    ${runEventsPath(context.runId)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
