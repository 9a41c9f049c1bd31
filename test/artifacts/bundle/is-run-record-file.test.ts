import { describe, expect, it } from 'vitest';
import { isRunRecordFile } from '../../../src/artifacts/bundle/is-run-record-file.js';

describe('isRunRecordFile', () => {
  it.each([
    ['state.json', true],
    ['transitions.jsonl', true],
    ['events.jsonl', true],
    ['artifacts.jsonl', true],
    ['terminal.json', true],
    ['workflow.yaml', true],
    ['state.lock', true],
    ['submit.lock', true],
    ['manifests/plan.json', true],
    ['traces/build.json', true],
    ['snapshots/plan-2.json', true],
    ['STATE.json', false],
    ['notes.md', false],
    ['manifests/plan.md', false],
    ['manifests/a/b.json', false],
    ['docs/huge.bin', false],
    ['state.json/x', false],
    ['replies/none.json', false],
  ])('judges %j a run folder file: %s', (path, expected) => {
    expect(isRunRecordFile(path)).toBe(expected);
  });
});
