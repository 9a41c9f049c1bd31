import { describe, expect, it } from 'vitest';
import { VERIFY_SEVERITY } from '../../src/cli/verify-severity.js';

describe('VERIFY_SEVERITY', () => {
  it.each([
    ['missing_object', 'error'],
    ['corrupt_object', 'error'],
    ['workspace_modified', 'error'],
    ['workspace_missing', 'error'],
    ['workspace_not_a_file', 'error'],
    ['invalid_record_line', 'error'],
    ['index_missing_record', 'warning'],
    ['index_unknown_record', 'warning'],
  ] as const)('%s is an %s', (code, severity) => {
    expect(VERIFY_SEVERITY[code]).toBe(severity);
  });
});
