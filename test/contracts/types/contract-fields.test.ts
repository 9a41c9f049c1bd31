import { describe, expect, it } from 'vitest';
import { contractFields } from '../../../src/contracts/index.js';
import type { ContractType } from '../../../src/contracts/index.js';

describe('contractFields', () => {
  it('names nested fields by the path an error uses, with [] for any item', () => {
    expect(contractFields('development_result')).toEqual(
      expect.arrayContaining([
        {
          path: 'changed_files[].change',
          type: 'text',
          required: true,
          constraints: ['one of `added`, `modified`, `deleted`'],
          values: ['added', 'modified', 'deleted'],
          rules: [],
        },
        expect.objectContaining({ path: 'reviewer_focus', type: 'list of text', required: true }),
      ]),
    );
    expect(contractFields('issues').map((field) => [field.path, field.required])).toEqual([
      ['issues', true],
      ['issues[].id', true],
      ['issues[].severity', true],
      ['issues[].title', true],
      ['issues[].description', true],
      ['issues[].path', false],
      ['issues[].line', false],
    ]);
  });

  it('says each constraint in words: enum values, length, the path rule, counts, unknown keys', () => {
    const byPath = (type: ContractType) =>
      new Map(contractFields(type).map((field) => [field.path, field.constraints.join('; ')]));
    const commit = byPath('commit_message');
    expect(commit.get('subject')).toMatch(/at most 72 characters.*no trailing period.*one line/);
    expect(commit.get('type')).toContain('one of `feat`, `fix`');
    expect(byPath('commit_cleanup').get('actions[].path')).toMatch(/project-relative.*'\.\.'/);
    expect(byPath('commit_cleanup').get('actions')).toContain('unknown keys refused in each item');
    expect(byPath('smoke_test_result').get('failed')).toBe('0 or more');
    expect(byPath('issues').get('issues[].line')).toBe('1 or more');
    expect(byPath('issues').get('issues')).toMatch(/used once/);
  });

  it('keeps short rules apart from the description, the values and the unknown-keys rule', () => {
    const byPath = (type: ContractType) => new Map(contractFields(type).map((field) => [field.path, field]));
    const commit = byPath('commit_message');
    expect(commit.get('subject')?.rules).toEqual([
      'at most 72 characters',
      'not empty',
      'no trailing period',
      'one line',
    ]);
    expect(commit.get('type')?.values).toContain('revert');
    expect(commit.get('footers')?.rules).toEqual([]);
    // The table leaves the path rule to the field's description; the short words say it.
    expect(byPath('commit_cleanup').get('actions[].path')?.rules).toEqual([
      'a project-relative path (no `..` segment, not absolute)',
    ]);
    expect(byPath('product_spec').get('goals')?.rules).toEqual(['each item: not empty']);
  });
});
