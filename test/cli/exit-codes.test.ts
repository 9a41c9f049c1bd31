import { describe, expect, it } from 'vitest';
import { EXIT_CODES, exitCodeFor } from '../../src/cli/exit-codes.js';
import type { CliErrorCode } from '../../src/cli/exit-codes.js';

describe('EXIT_CODES', () => {
  it.each<[CliErrorCode, number]>([
    ['usage', 2],
    ['invalid_config', 2],
    ['invalid_id', 2],
    ['unknown_run', 2],
    ['invalid_time', 2],
    ['target_not_empty', 2],
    ['output_exists', 2],
    ['corrupt_object', 1],
    ['missing_object', 1],
    ['hash_mismatch', 1],
    ['ingest_failed', 1],
    ['io_error', 1],
    ['not_started', 2],
    ['several_running', 2],
    ['unknown_workflow', 2],
    ['missing_input', 2],
    ['output_required', 2],
    ['not_running', 2],
    ['registration_required', 1],
    ['step_blocked', 1],
    ['state_conflict', 1],
    ['state_locked', 1],
    ['interrupted', 130],
    ['aborted', 130],
  ])('maps %s to %i', (code, exit) => {
    expect(exitCodeFor(code)).toBe(exit);
  });

  it('uses only 1, 2 and 130 for errors', () => {
    expect(new Set(Object.values(EXIT_CODES))).toEqual(new Set([1, 2, 130]));
  });
});
