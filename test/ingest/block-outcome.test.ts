import { describe, expect, it } from 'vitest';
import { eventLevelOf, manifestArtifactOf } from '../../src/ingest/block-outcome.js';
import type { BlockOutcome } from '../../src/ingest/block-outcome.js';
import { REASON_CODES, statusOfReason } from '../../src/ingest/index.js';
import type { ReasonCode } from '../../src/ingest/index.js';

const outcome = (code: ReasonCode | null, message = ''): BlockOutcome => ({
  index: 0,
  lang: 'ts',
  declaredFile: 'a.ts',
  workspacePath: 'workspace/a.ts',
  bytes: 1,
  sha256: '0'.repeat(64),
  status: code === null ? 'written' : statusOfReason(code),
  code,
  message,
});

describe('manifestArtifactOf', () => {
  it.each([
    [null, '', ''],
    ['dry_run', 'would write', 'dry_run: would write'],
    [
      'unchanged',
      'the file already holds exactly these bytes',
      'unchanged: the file already holds exactly these bytes',
    ],
    ['traversal', 'contains a ".." segment', 'traversal: contains a ".." segment'],
  ] as const)('makes the reason of code %s from code and message', (code, message, reason) => {
    expect(manifestArtifactOf(outcome(code, message))).toMatchObject({ reason, declared_file: 'a.ts' });
  });

  it('adds warnings as code: message only to an entry that has them', () => {
    expect(manifestArtifactOf(outcome(null))).not.toHaveProperty('warnings');
    const warned = {
      ...outcome(null),
      warnings: [{ code: 'workspace_prefix', message: 'write x' }] as const,
    };
    expect(manifestArtifactOf(warned)).toMatchObject({ reason: '', warnings: ['workspace_prefix: write x'] });
  });
});

describe('eventLevelOf', () => {
  it.each([
    [null, 'INFO'],
    ['dry_run', 'INFO'],
    ['unchanged', 'INFO'],
    ['superseded', 'INFO'],
    ['too_large', 'WARNING'],
    ['missing_lang', 'WARNING'],
    ['traversal', 'ERROR'],
    ['case_collision', 'ERROR'],
  ] as const)('gives code %s the level %s', (code, level) => {
    expect(eventLevelOf(outcome(code))).toBe(level);
  });

  it.each([
    [null, 'WARNING'],
    ['unchanged', 'WARNING'],
    ['too_large', 'WARNING'],
    ['case_collision', 'ERROR'],
  ] as const)('raises an entry with a warning and code %s to %s, never lowering an ERROR', (code, level) => {
    const warnings = [{ code: 'workspace_prefix', message: 'write x' }] as const;
    expect(eventLevelOf({ ...outcome(code), warnings })).toBe(level);
  });

  it('reports every rejected code at ERROR, as the manifest rejects it', () => {
    for (const code of REASON_CODES) {
      if (statusOfReason(code) === 'rejected') expect(eventLevelOf(outcome(code)), code).toBe('ERROR');
    }
  });
});
