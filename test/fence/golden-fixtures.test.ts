import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseFences } from '../../src/fence/index.js';

const fenceFixtures = fileURLToPath(new URL('../../fixtures/fence/', import.meta.url));
const cases = readdirSync(fenceFixtures, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('golden fence fixtures (regenerate with npx tsx fixtures/regen.ts)', () => {
  it('has at least 12 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(12);
  });

  it.each(cases)('%s matches its expected.json', (name) => {
    const markdown = readFileSync(join(fenceFixtures, name, 'input.md'), 'utf8');
    const expected: unknown = JSON.parse(readFileSync(join(fenceFixtures, name, 'expected.json'), 'utf8'));
    expect(parseFences(markdown)).toEqual(expected);
  });
});
