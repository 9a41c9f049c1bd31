import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { REASON_CODES, statusOfReason } from '../../src/ingest/index.js';

describe('reason codes', () => {
  it('documents every code in docs/reason-codes.md with its status section', async () => {
    const doc = await readFile(new URL('../../docs/reason-codes.md', import.meta.url), 'utf8');
    const [skippedPart = '', rejectedPart = ''] = doc.split('## `rejected`');
    for (const code of REASON_CODES) {
      const section = statusOfReason(code) === 'skipped' ? skippedPart : rejectedPart;
      expect(section, code).toMatch(new RegExp(`\\|\\s*\`${code}\`\\s*\\|`));
    }
  });

  it('has no duplicates', () => {
    expect(new Set(REASON_CODES).size).toBe(REASON_CODES.length);
  });
});
