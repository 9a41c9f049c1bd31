import { describe, expect, it } from 'vitest';
import { defaultCliRunId, deriveNodeId } from '../../src/ingest/index.js';
import { runIdSchema } from '../../src/project/index.js';

describe('deriveNodeId', () => {
  it.each([
    ['docs/plan.md', 'plan'],
    ['docs/tasks/api.md', 'tasks.api'],
    ['docs/audits/security review.md', 'audits.security-review'],
    ['notes/x.markdown', 'notes.x'],
    ['docs/_draft.md', 'draft'],
    ['docs/.md', 'doc'],
    ['docs/計画.md', 'doc'],
  ])('derives %s -> %s', (docPath, expected) => {
    expect(deriveNodeId(docPath)).toBe(expected);
  });

  it('always yields a valid id, even for long names', () => {
    const id = deriveNodeId(`docs/${'a'.repeat(300)}.md`);
    expect(id).toHaveLength(128);
    expect(runIdSchema.safeParse(id).success).toBe(true);
  });

  it('makes CLI run ids from the UTC time', () => {
    expect(defaultCliRunId(new Date('2026-11-21T20:30:01.234Z'))).toBe('cli-20261121T203001234Z');
  });
});

describe('deriveNodeId and secrets', () => {
  it.each([
    ['docs/password=hunter2x.md', 'password-REDACTED-'],
    [`docs/run_${'ghp_' + 'EXtMlRz4AnKCdkZBwtNGaKx82cVGEIBLG9HR'}.md`, 'run_-REDACTED-'],
  ])(
    'redacts the secret in %s before deriving, so no new shape escapes the patterns',
    (docPath, expected) => {
      expect(deriveNodeId(docPath)).toBe(expected);
    },
  );
});
