import { describe, expect, it } from 'vitest';
import { listBlockOutcomes, statusOfReason } from '../../src/ingest/index.js';
import type { BlockOutcome, ReasonCode } from '../../src/ingest/index.js';

function outcome(index: number, code: ReasonCode | null, file = `src/f${String(index)}.ts`): BlockOutcome {
  return {
    index,
    lang: 'ts',
    declaredFile: file,
    // A refused path, or none at all, has no workspace path (spec ingest.md section 4).
    workspacePath:
      file === '' || (code !== null && statusOfReason(code) === 'rejected') ? '' : `workspace/${file}`,
    bytes: 1,
    sha256: '0'.repeat(64),
    status: code === null ? 'written' : statusOfReason(code),
    code,
    message: code === null ? '' : `why ${code}`,
  };
}

describe('listBlockOutcomes', () => {
  it("lists each block with the manifest's words: declared file, status, workspace path and reason", () => {
    const listing = listBlockOutcomes(
      [
        outcome(0, null),
        outcome(1, 'unchanged'),
        outcome(2, 'traversal', '../x.sh'),
        outcome(3, 'missing_file', ''),
      ],
      50,
    );
    expect(listing).toEqual({
      blocks: [
        { index: 0, declared_file: 'src/f0.ts', status: 'written', workspace_path: 'workspace/src/f0.ts' },
        {
          index: 1,
          declared_file: 'src/f1.ts',
          status: 'skipped',
          workspace_path: 'workspace/src/f1.ts',
          reason: 'unchanged: why unchanged',
        },
        { index: 2, declared_file: '../x.sh', status: 'rejected', reason: 'traversal: why traversal' },
        { index: 3, declared_file: '', status: 'skipped', reason: 'missing_file: why missing_file' },
      ],
      left_out: 0,
    });
  });

  it('keeps the refused and lossy blocks first past the cap, shows them in document order, and counts the rest', () => {
    const blocks = [
      ...Array.from({ length: 6 }, (_, index) => outcome(index, null)),
      outcome(6, 'unterminated'),
      outcome(7, 'unchanged'),
      outcome(8, 'traversal', '../x'),
    ];
    const listing = listBlockOutcomes(blocks, 3);
    expect(listing.left_out).toBe(6);
    expect(listing.blocks.map((block) => [block.index, block.status])).toEqual([
      [0, 'written'],
      [6, 'skipped'],
      [8, 'rejected'],
    ]);
  });

  it("carries an entry's warnings, and keeps a warned block before plain written ones past the cap", () => {
    const warned: BlockOutcome = {
      ...outcome(2, null, 'workspace/src/p.ts'),
      workspacePath: 'workspace/workspace/src/p.ts',
      warnings: [{ code: 'workspace_prefix', message: 'write file=src/p.ts' }],
    };
    const listing = listBlockOutcomes([outcome(0, null), outcome(1, null), warned], 1);
    expect(listing).toEqual({
      blocks: [
        {
          index: 2,
          declared_file: 'workspace/src/p.ts',
          status: 'written',
          workspace_path: 'workspace/workspace/src/p.ts',
          warnings: ['workspace_prefix: write file=src/p.ts'],
        },
      ],
      left_out: 2,
    });
  });

  it('lists nothing and leaves nothing out of a document without candidates', () => {
    expect(listBlockOutcomes([], 50)).toEqual({ blocks: [], left_out: 0 });
  });
});
