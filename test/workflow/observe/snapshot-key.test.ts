import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/project/index.js';
import { SECRET_KEY_PREFIX, snapshotKey } from '../../../src/workflow/index.js';

const TOKEN = `ghp_${'a1B2c3D4e5'.repeat(4).slice(0, 36)}`;
const OTHER = `ghp_${'Z9y8X7w6V5'.repeat(4).slice(0, 36)}`;

describe('snapshotKey', () => {
  it.each([
    ['a plain path', 'src/app.ts'],
    [
      'a path whose whole text would pass for an AWS secret across its slashes',
      'src/Api/Handlers/Users/Profile/View1',
    ],
    ['a folder named like the marker alone', '[REDACTED]/a.txt'],
  ])('keeps %s as it is', (_name, path) => {
    expect(snapshotKey(path)).toBe(path);
  });

  it.each([
    ['a token as the file name', `${TOKEN}.md`, '[REDACTED].md'],
    ['a token as a folder', `keys/${TOKEN}/notes.md`, 'keys/[REDACTED]/notes.md'],
    ['an assignment as the file name', 'password=hunter2.txt', 'password=[REDACTED]'],
  ])('keys %s by its digest, with the credential redacted', (_name, path, shown) => {
    const key = snapshotKey(path);
    expect(key).toBe(`${SECRET_KEY_PREFIX}${sha256Hex(path)}:${shown}`);
    expect(key).not.toContain(TOKEN);
    expect(key).not.toContain('hunter2');
  });

  it('gives equal paths equal keys and different paths different keys', () => {
    expect(snapshotKey(`${TOKEN}.md`)).toBe(snapshotKey(`${TOKEN}.md`));
    expect(snapshotKey(`${TOKEN}.md`)).not.toBe(snapshotKey(`${OTHER}.md`));
  });

  it('keys a real path that starts with the marker by its digest too, so it cannot pass for another key', () => {
    const forged = snapshotKey(`${TOKEN}.md`);
    expect(snapshotKey(forged)).not.toBe(forged);
    expect(snapshotKey(forged)).toBe(`${SECRET_KEY_PREFIX}${sha256Hex(forged)}:${forged}`);
  });
});
