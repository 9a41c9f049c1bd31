import { describe, expect, it } from 'vitest';
import {
  InvalidIdError,
  isRunId,
  nodeIdSchema,
  parseNodeId,
  parseRunId,
  runIdSchema,
} from '../../src/project/ids.js';
import { ID_PATTERN, isId } from '../../src/project/id-pattern.js';

describe('run and node ids', () => {
  it.each([
    ['a', true],
    ['team-20261121T203000000Z', true],
    ['a.b_c-d', true],
    ['x'.repeat(128), true],
    ['x'.repeat(129), false],
    ['', false],
    ['-a', false],
    ['.a', false],
    ['../x', false],
    ['a/b', false],
    ['a b', false],
    ['é', false],
  ])('%j is an id: %s', (text, valid) => {
    expect(isId(text)).toBe(valid);
    expect(isRunId(text)).toBe(valid);
    expect(runIdSchema.safeParse(text).success).toBe(valid);
    expect(nodeIdSchema.safeParse(text).success).toBe(valid);
    expect(ID_PATTERN.test(text)).toBe(valid);
  });

  it('parses a valid id to itself', () => {
    expect(parseRunId('run-1')).toBe('run-1');
    expect(parseNodeId('plan')).toBe('plan');
  });

  it('refuses an invalid id with a coded error naming what it was for and the rule', () => {
    const error = (() => {
      try {
        parseRunId('../x', '--run-id');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidIdError);
    expect((error as InvalidIdError).code).toBe('invalid_id');
    expect((error as InvalidIdError).message).toBe(
      `--run-id "../x" must match ${ID_PATTERN.source} (1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit)`,
    );
    expect(() => parseNodeId('a/b')).toThrow(/^node id "a\/b" must match/);
  });
});

describe('ids that hold a secret', () => {
  const token = 'ghp_' + 'EXtMlRz4AnKCdkZBwtNGaKx82cVGEIBLG9HR';

  it.each([
    ['a run id', () => parseRunId(`run_${token}`)],
    ['a node id', () => parseNodeId(`n-${token}`, '--node-id')],
    ['an id after a dot', () => parseNodeId(`tasks.${token}`)],
  ])('refuses %s with a message that names the family, never the secret', (_name, parse) => {
    let error: unknown;
    try {
      parse();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidIdError);
    const { message, value } = error as InvalidIdError;
    expect(message).toMatch(/holds what looks like a credential; .* \(it looks like a GitHub token/);
    expect(message).not.toContain(token);
    expect(value).not.toContain(token);
  });

  it('is not a valid id for the schemas and guards either', () => {
    expect(nodeIdSchema.safeParse(`k_${token}`).success).toBe(false);
    expect(isRunId(`k_${token}`)).toBe(false);
    // Hashes and UUIDs look random but are no credential.
    expect(isRunId('3f2a9c1e-7b4d-4e8a-9f01-2b3c4d5e6f70')).toBe(true);
    expect(isRunId('0123456789abcdef0123456789abcdef01234567')).toBe(true);
  });
});
