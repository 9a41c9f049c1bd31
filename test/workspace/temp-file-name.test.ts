import { describe, expect, it } from 'vitest';
import { TEMP_FILE_PATTERN, tempFileName } from '../../src/workspace/temp-file-name.js';

describe('tempFileName', () => {
  it('makes distinct names that match the temp pattern and stay short', () => {
    const names = new Set(Array.from({ length: 100 }, () => tempFileName()));
    expect(names.size).toBe(100);
    for (const name of names) {
      expect(name).toMatch(TEMP_FILE_PATTERN);
      expect(name.length).toBeLessThan(40);
    }
  });
});
