import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineageError } from '../../../src/artifacts/lineage/lineage-error.js';
import { resolveRecordPath } from '../../../src/artifacts/lineage/resolve-record-path.js';

const project = '/home/me/project';

describe('resolveRecordPath', () => {
  it.each([
    ['workspace/src/a.ts', 'workspace/src/a.ts'],
    ['src/a.ts', 'workspace/src/a.ts'],
    ['a.ts', 'workspace/a.ts'],
    ['./workspace/src/a.ts', 'workspace/src/a.ts'],
    ['./src/./a.ts', 'workspace/src/a.ts'],
    ['workspace//src///a.ts', 'workspace/src/a.ts'],
    ['docs/plan.md', 'docs/plan.md'],
    ['audits/review.md', 'audits/review.md'],
    ['.agent/runs/run-001/traces/build.json', '.agent/runs/run-001/traces/build.json'],
    ['workspace\\src\\a.ts', 'workspace/src/a.ts'],
    ['src\\a.ts', 'workspace/src/a.ts'],
    ['documents/x.md', 'workspace/documents/x.md'],
    ['.agentx/a.ts', 'workspace/.agentx/a.ts'],
    [`${project}/workspace/src/a.ts`, 'workspace/src/a.ts'],
    [`${project}/docs/plan.md`, 'docs/plan.md'],
    // An absolute path is exact: a file at the project root is not read inside workspace/.
    [`${project}/README.md`, 'README.md'],
    [`${project}/workspace/../docs/plan.md`, 'docs/plan.md'],
  ])('resolves %j to %j', (input, expected) => {
    expect(resolveRecordPath(project, input)).toBe(expected);
  });

  it.each([
    ['../../outside.ts', "contains a '..' segment"],
    ['src/../../a.ts', "contains a '..' segment"],
    ['workspace/../docs/plan.md', "contains a '..' segment"],
    ['..\\outside.ts', "contains a '..' segment"],
    ['/etc/passwd', 'is outside the project'],
    [`${project}-other/workspace/a.ts`, 'is outside the project'],
    [`${project}/../other/a.ts`, 'is outside the project'],
    ['C:\\work\\a.ts', 'is outside the project'],
    [project, 'is the project itself'],
    ['', 'names no file'],
    ['./', 'names no file'],
  ])('refuses %j with unknown_path (%s)', (input, reason) => {
    let thrown: unknown;
    try {
      resolveRecordPath(project, input);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LineageError);
    expect(thrown).toMatchObject({ code: 'unknown_path' });
    expect((thrown as Error).message).toContain(reason);
    expect((thrown as Error).message).toContain('paths look like workspace/src/a.ts');
  });

  it('resolves a relative project directory against the current directory', () => {
    const relativeProject = path.relative(process.cwd(), project);
    expect(resolveRecordPath(relativeProject, `${project}/workspace/a.ts`)).toBe('workspace/a.ts');
  });
});
