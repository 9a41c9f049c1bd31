import { describe, expect, it } from 'vitest';
import { UnknownRunError } from '../../src/project/unknown-run-error.js';

describe('UnknownRunError', () => {
  it('says which run is missing, where runs live and how to list them, with a stable code', () => {
    const error = new UnknownRunError('run-9');
    expect(error.code).toBe('unknown_run');
    expect(error.runId).toBe('run-9');
    expect(error.message).toBe(`no run "run-9" in .agent/runs/; list the runs with 'artifact-ingest runs'`);
  });

  it('quotes a hostile id instead of printing it raw', () => {
    expect(new UnknownRunError('a\nb').message).toContain('"a\\nb"');
  });
});
