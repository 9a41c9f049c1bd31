import { listBlockOutcomes } from '../../../ingest/index.js';
import type { BlockOutcome, DocumentIngestSummary, ListedBlock } from '../../../ingest/index.js';
import { escapeLineText, redactSecrets } from '../../../project/index.js';

/** The most blocks an advance's `ingest` lists; `left_out` counts the others and the manifest has them all. */
export const MAX_LISTED_INGEST_BLOCKS = 50;

/** The most characters of one value from the document (a path, a reason) in the human lines. */
const MAX_FIELD_CHARS = 200;

/**
 * What became of a pass's output (docs/workflow-engine.md, "Step documents and ingest"): the document it was
 * saved as and, with the ingest on, the counts of the manifest, up to {@link MAX_LISTED_INGEST_BLOCKS} of its
 * blocks, each with its declared file, status, workspace path and reason, and `left_out`, the blocks not listed.
 */
export type StepIngestReport =
  | { readonly document: string; readonly enabled: false }
  | (DocumentIngestSummary & {
      readonly document: string;
      readonly enabled: true;
      readonly blocks: readonly ListedBlock[];
      readonly left_out: number;
    });

/** The report of one pass's document: `summary` and `blocks` are the ingest's, absent when it did not run. */
export function stepIngestReportOf(
  document: string,
  ingest: { readonly summary: DocumentIngestSummary; readonly blocks: readonly BlockOutcome[] } | undefined,
): StepIngestReport {
  if (ingest === undefined) return { document, enabled: false };
  return {
    document,
    enabled: true,
    ...ingest.summary,
    problems: [...ingest.summary.problems],
    ...listBlockOutcomes(ingest.blocks, MAX_LISTED_INGEST_BLOCKS),
  };
}

/**
 * The report as short lines for a person or an agent (the MCP result's text, the CLI's `workflow advance`):
 * a header with the counts, one line per listed block, what was left out, and the ingest's problems. Every value
 * is redacted, cut to 200 characters and escaped (controls, line breaks, bidi) before it is placed in a line.
 */
export function describeStepIngest(report: StepIngestReport): string[] {
  const document = field(report.document);
  if (!report.enabled) {
    return [
      `ingest: off: ${document} was saved; its file= blocks were not extracted into workspace/ (ARTIFACT_INGEST=1, or ingest.enabled: true in artifact-ingest.config.yaml, turns it on)`,
    ];
  }
  const counts = `${String(report.written)} written, ${String(report.skipped)} skipped, ${String(report.rejected)} rejected`;
  const manifest = report.manifest_path === '' ? '' : ` (manifest ${field(report.manifest_path)})`;
  const lines = [
    `ingest of ${document}: ${blocksOf(report.total_blocks)}: ${counts}${manifest}`,
    ...report.blocks.flatMap(blockLines),
  ];
  if (report.left_out > 0) {
    lines.push(`  ... ${blocksOf(report.left_out)} more, not listed here: the manifest has every block`);
  }
  if (report.total_blocks === 0 && report.problems.length === 0) {
    lines.push('  no file= blocks: a block becomes a file when it opens with ```<lang> file=<relative path>');
  }
  if (report.problems.length > 0) {
    const first = report.io_error === undefined ? '' : ` (first I/O error: ${field(report.io_error)})`;
    lines.push(`  problems: ${report.problems.map(field).join(', ')}${first}`);
  }
  return lines;
}

/** A block's line, and a `warning` line under it per warning of its entry. */
function blockLines(block: ListedBlock): string[] {
  const declared = block.declared_file === '' ? '(no file=)' : field(block.declared_file);
  const target =
    block.status === 'written' && block.workspace_path !== undefined
      ? `${declared} -> ${field(block.workspace_path)}`
      : declared;
  const line = `  ${block.status.padEnd(9)} ${target}${block.reason === undefined ? '' : `  ${field(block.reason)}`}`;
  return [line, ...(block.warnings ?? []).map((warning) => `  ${'warning'.padEnd(9)} ${field(warning)}`)];
}

function blocksOf(count: number): string {
  return `${String(count)} block${count === 1 ? '' : 's'}`;
}

/** A value from the document, safe in one line: redacted first, so that no cut splits a secret out of its pattern. */
function field(text: string): string {
  const redacted = redactSecrets(text);
  if (redacted.length <= MAX_FIELD_CHARS) return escapeLineText(redacted);
  let end = MAX_FIELD_CHARS;
  const last = redacted.charCodeAt(end - 1);
  // Never cut between the halves of a surrogate pair.
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${escapeLineText(redacted.slice(0, end))}…`;
}
