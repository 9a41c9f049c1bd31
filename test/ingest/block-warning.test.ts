import { describe, expect, it } from 'vitest';
import { warningsOfPath, warningText } from '../../src/ingest/block-warning.js';

describe('warningsOfPath', () => {
  it.each([
    ['workspace/src/p.ts', 'src/p.ts'],
    ['workspace/p.ts', 'p.ts'],
    ['workspace/workspace/p.ts', 'workspace/p.ts'],
  ])('names the doubled prefix of %j and the path to write instead', (normalizedPath, meant) => {
    expect(warningsOfPath(normalizedPath)).toEqual([
      {
        code: 'workspace_prefix',
        message: `file= path starts with workspace/, so the block goes to workspace/${normalizedPath}; paths are relative to workspace/: write file=${meant}`,
      },
    ]);
  });

  it.each([
    'src/p.ts',
    'workspace',
    'workspaces/p.ts',
    'Workspace/p.ts',
    'src/workspace/p.ts',
    'my-workspace/p.ts',
  ])('gives %j no warning', (normalizedPath) => {
    expect(warningsOfPath(normalizedPath)).toEqual([]);
  });

  it('writes a warning as code: message, as a reason is written', () => {
    expect(warningText({ code: 'workspace_prefix', message: 'write file=a.ts' })).toBe(
      'workspace_prefix: write file=a.ts',
    );
  });
});
