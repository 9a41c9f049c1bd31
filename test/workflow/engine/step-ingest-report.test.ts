import { describe, expect, it } from 'vitest';
import { statusOfReason } from '../../../src/ingest/index.js';
import type { BlockOutcome, DocumentIngestSummary, ReasonCode } from '../../../src/ingest/index.js';
import {
  MAX_LISTED_INGEST_BLOCKS,
  describeStepIngest,
  stepIngestReportOf,
} from '../../../src/workflow/index.js';

function outcome(index: number, code: ReasonCode | null, file = `src/f${String(index)}.ts`): BlockOutcome {
  const status = code === null ? 'written' : statusOfReason(code);
  return {
    index,
    lang: 'ts',
    declaredFile: file,
    workspacePath: status === 'rejected' ? '' : `workspace/${file}`,
    bytes: 1,
    sha256: '0'.repeat(64),
    status,
    code,
    message: code === null ? '' : `why ${code}`,
  };
}

function summaryOf(
  blocks: readonly BlockOutcome[],
  extra: Partial<DocumentIngestSummary> = {},
): DocumentIngestSummary {
  const count = (status: string): number => blocks.filter((block) => block.status === status).length;
  return {
    total_blocks: blocks.length,
    written: count('written'),
    skipped: count('skipped'),
    rejected: count('rejected'),
    manifest_path: '.agent/runs/r/manifests/build.json',
    problems: [],
    ...extra,
  };
}

const DOCUMENT = 'docs/r/build.md';

describe('stepIngestReportOf', () => {
  it("carries the manifest's counts and every block with its declared file, status, workspace path and reason", () => {
    const blocks = [outcome(0, null), outcome(1, 'unterminated', 'src/cut.ts')];
    expect(stepIngestReportOf(DOCUMENT, { summary: summaryOf(blocks), blocks })).toEqual({
      document: DOCUMENT,
      enabled: true,
      total_blocks: 2,
      written: 1,
      skipped: 1,
      rejected: 0,
      manifest_path: '.agent/runs/r/manifests/build.json',
      problems: [],
      blocks: [
        { index: 0, declared_file: 'src/f0.ts', status: 'written', workspace_path: 'workspace/src/f0.ts' },
        {
          index: 1,
          declared_file: 'src/cut.ts',
          status: 'skipped',
          workspace_path: 'workspace/src/cut.ts',
          reason: 'unterminated: why unterminated',
        },
      ],
      left_out: 0,
    });
  });

  it(`lists at most ${String(MAX_LISTED_INGEST_BLOCKS)} blocks, the rejected ones kept, and counts the others in left_out`, () => {
    const blocks = [
      ...Array.from({ length: 60 }, (_, index) => outcome(index, null)),
      outcome(60, 'traversal', '../a'),
      outcome(61, 'absolute_path', '/etc/b'),
    ];
    const report = stepIngestReportOf(DOCUMENT, { summary: summaryOf(blocks), blocks });
    if (!report.enabled) throw new Error('expected the ingest to have run');
    expect(report.blocks).toHaveLength(50);
    expect(report.left_out).toBe(12);
    expect(report.blocks.filter((block) => block.status === 'rejected').map((block) => block.index)).toEqual([
      60, 61,
    ]);
    expect(describeStepIngest(report)).toContain(
      '  ... 12 blocks more, not listed here: the manifest has every block',
    );
  });

  it('says the ingest is off when it did not run', () => {
    const report = stepIngestReportOf(DOCUMENT, undefined);
    expect(report).toEqual({ document: DOCUMENT, enabled: false });
    expect(describeStepIngest(report)).toEqual([
      expect.stringMatching(/^ingest: off: docs\/r\/build\.md was saved; .*ARTIFACT_INGEST=1/) as string,
    ]);
  });
});

describe('describeStepIngest', () => {
  it('says in one line per block what became of each: written where, skipped or rejected and why', () => {
    const blocks = [
      outcome(0, null),
      outcome(1, 'unchanged', 'src/same.ts'),
      outcome(2, 'traversal', '../x.sh'),
      outcome(3, 'missing_file', ''),
    ];
    expect(describeStepIngest(stepIngestReportOf(DOCUMENT, { summary: summaryOf(blocks), blocks }))).toEqual([
      'ingest of docs/r/build.md: 4 blocks: 1 written, 2 skipped, 1 rejected (manifest .agent/runs/r/manifests/build.json)',
      '  written   src/f0.ts -> workspace/src/f0.ts',
      '  skipped   src/same.ts  unchanged: why unchanged',
      '  rejected  ../x.sh  traversal: why traversal',
      '  skipped   (no file=)  missing_file: why missing_file',
    ]);
  });

  it('lists a block written with a warning, such as a doubled workspace/ prefix, with the warning under it', () => {
    const doubled: BlockOutcome = {
      ...outcome(0, null, 'workspace/src/p.ts'),
      warnings: [{ code: 'workspace_prefix', message: 'write file=src/p.ts' }],
    };
    const report = stepIngestReportOf(DOCUMENT, { summary: summaryOf([doubled]), blocks: [doubled] });
    if (!report.enabled) throw new Error('expected the ingest to have run');
    expect(report.blocks).toEqual([
      {
        index: 0,
        declared_file: 'workspace/src/p.ts',
        status: 'written',
        workspace_path: 'workspace/workspace/src/p.ts',
        warnings: ['workspace_prefix: write file=src/p.ts'],
      },
    ]);
    expect(describeStepIngest(report).slice(1)).toEqual([
      '  written   workspace/src/p.ts -> workspace/workspace/src/p.ts',
      '  warning   workspace_prefix: write file=src/p.ts',
    ]);
  });

  it('tells how to write a file block when the output had none, and names the problems of a failed ingest', () => {
    const none = stepIngestReportOf(DOCUMENT, { summary: summaryOf([]), blocks: [] });
    expect(describeStepIngest(none)).toEqual([
      'ingest of docs/r/build.md: 0 blocks: 0 written, 0 skipped, 0 rejected (manifest .agent/runs/r/manifests/build.json)',
      '  no file= blocks: a block becomes a file when it opens with ```<lang> file=<relative path>',
    ]);
    const failed = stepIngestReportOf(DOCUMENT, {
      summary: summaryOf([], {
        manifest_path: '',
        problems: ['io_error'],
        io_errors: 1,
        io_error: 'cannot open workspace/ (EROFS)',
      }),
      blocks: [],
    });
    expect(describeStepIngest(failed)).toEqual([
      'ingest of docs/r/build.md: 0 blocks: 0 written, 0 skipped, 0 rejected',
      '  problems: io_error (first I/O error: cannot open workspace/ (EROFS))',
    ]);
  });

  it('redacts, cuts and escapes every value taken from the document, so none can break, reorder or leak a line', () => {
    const token = `ghp_${'a1B2'.repeat(9)}`;
    const blocks = [
      outcome(0, 'control_char', `src/\u001b[2J/${token}\n.ts`),
      outcome(1, 'invalid_unicode', 'src/\u202eexe.ts'),
      // The token straddles the cut: cut first, its head would no longer match the pattern and would leak.
      outcome(2, 'too_long', `src/${'x'.repeat(180)}/${token}/${'y'.repeat(300)}.ts`),
    ];
    const lines = describeStepIngest(stepIngestReportOf(DOCUMENT, { summary: summaryOf(blocks), blocks }));
    const text = lines.join('\n');
    expect(lines).toHaveLength(4);
    expect(text).not.toContain('ghp_');
    // eslint-disable-next-line no-control-regex -- no control character may reach the lines
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(lines[1]).toBe('  rejected  src/\\u001b[2J/[REDACTED]\\u000a.ts  control_char: why control_char');
    expect(lines[2]).toBe('  rejected  src/\\u202eexe.ts  invalid_unicode: why invalid_unicode');
    expect(lines[3]).toMatch(/^ {2}rejected {2}src\/x{180}\/\[REDACTED\]\/y+… {2}too_long: why too_long$/);
    expect(lines[3]?.indexOf('…')).toBe(12 + 200);
  });
});
