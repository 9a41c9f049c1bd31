import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { REASON_CODES, statusOfReason, WARNING_CODES } from '../../src/ingest/index.js';

describe('reason codes', () => {
  it('documents every code in docs/reason-codes.md with its status section', async () => {
    const doc = await readFile(new URL('../../docs/reason-codes.md', import.meta.url), 'utf8');
    const [beforeSkipped = '', fromSkipped = ''] = doc.split('## `skipped`');
    const [skippedPart = '', rejectedPart = ''] = fromSkipped.split('## `rejected`');
    const writtenPart = beforeSkipped.split('## `written`')[1] ?? '';
    const sectionOf = { written: writtenPart, skipped: skippedPart, rejected: rejectedPart } as const;
    for (const code of REASON_CODES) {
      expect(sectionOf[statusOfReason(code)], code).toMatch(new RegExp(`\\|\\s*\`${code}\`\\s*\\|`));
    }
  });

  it('documents every warning code in the Warnings section of docs/reason-codes.md', async () => {
    const doc = await readFile(new URL('../../docs/reason-codes.md', import.meta.url), 'utf8');
    const warnings = doc.split('## Warnings')[1]?.split('\n## ')[0] ?? '';
    for (const code of WARNING_CODES) expect(warnings, code).toMatch(new RegExp(`\\|\\s*\`${code}\`\\s*\\|`));
  });

  it('makes dry_run the one code of a block that would be written', () => {
    expect(REASON_CODES.filter((code) => statusOfReason(code) === 'written')).toEqual(['dry_run']);
  });

  it('has no duplicates', () => {
    expect(new Set(REASON_CODES).size).toBe(REASON_CODES.length);
  });
});
