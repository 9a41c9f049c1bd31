import { describe, expect, it } from 'vitest';
import { redactJson } from '../../src/project/index.js';

const token = 'ghp_' + 'EXtMlRz4AnKCdkZBwtNGaKx82cVGEIBLG9HR';

describe('redactJson', () => {
  it('redacts every string, however deeply nested, and keeps numbers, booleans and null', () => {
    const value = {
      error: { code: 'exit_status', message: `failed: ${token}` },
      problems: [`io_error: ${token}`, 'fine'],
      inputs: { goal: `token=${token}` },
      count: 3,
      ok: true,
      none: null,
    };
    expect(redactJson(value)).toEqual({
      error: { code: 'exit_status', message: 'failed: [REDACTED]' },
      problems: ['io_error: [REDACTED]', 'fine'],
      inputs: { goal: 'token=[REDACTED]' },
      count: 3,
      ok: true,
      none: null,
    });
  });

  it.each([
    ['path'],
    ['doc_path'],
    ['manifest_path'],
    ['output_path'],
    ['contentHash'],
    ['sha256'],
    ['runId'],
    ['taskId'],
    ['artifactId'],
  ])('keeps the value of %s byte for byte: paths, hashes and ids are clean by rule', (key) => {
    // A 40-character run of letters, digits and '/' passes for an AWS secret; a recorded path must stay as it is.
    const pathLike = 'workspace/src/Components/Button2/abcdefg';
    expect(redactJson({ [key]: pathLike })).toEqual({ [key]: pathLike });
  });

  it('redacts an agent id, which is a name from the configuration, not an id checked at the edge', () => {
    expect(redactJson({ agentId: token })).toEqual({ agentId: '[REDACTED]' });
  });

  it('does not change its argument', () => {
    const value = { message: token };
    redactJson(value);
    expect(value.message).toBe(token);
  });
});
