import { describe, expect, it } from 'vitest';
import { capRows, LISTING_CAP } from '../../src/cli/render/cap-rows.js';
import { runCli } from '../helpers/run-cli.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';

describe('capRows', () => {
  it('keeps the first rows and says how many more, with thousands separators', () => {
    const rows = Array.from({ length: LISTING_CAP + 5000 }, (_, index) => index);
    const capped = capRows(rows, true);
    expect(capped.rows).toEqual(rows.slice(0, LISTING_CAP));
    expect(capped.more).toBe('... and 5,000 more; --json for all');
  });

  it.each([
    ['not capped', false, LISTING_CAP + 1],
    ['at the cap', true, LISTING_CAP],
  ])('keeps every row when %s', (_name, capped, length) => {
    const rows = Array.from({ length }, (_, index) => index);
    expect(capRows(rows, capped)).toEqual({ rows, more: undefined });
  });
});

describe('long listings on a terminal', () => {
  const blocks = (count: number): string =>
    Array.from({ length: count }, (_, index) => fileBlock('txt', `f${index}.txt`, `${index}`)).join('\n');

  it('caps the ingest report per document on a terminal, not when piped or with --json', async () => {
    const dir = await tempProject({ 'docs/big.md': blocks(LISTING_CAP + 400) });
    const terminal = await runCli(['ingest', '--dry-run'], { cwd: dir, terminalColumns: 100 });
    expect(terminal.code).toBe(0);
    expect(terminal.stdout).toContain('  ... and 400 more; --json for all\n');
    expect(terminal.stdout.match(/^ {2}written /gm)).toHaveLength(LISTING_CAP);
    expect(terminal.stdout).toMatch(/docs\/big\.md\s+450\s+450/);

    const piped = await runCli(['ingest', '--dry-run'], { cwd: dir });
    expect(piped.stdout).not.toContain('more; --json for all');
    expect(piped.stdout.match(/^ {2}written /gm)).toHaveLength(LISTING_CAP + 400);

    const json = await runCli(['ingest', '--dry-run', '--json'], { cwd: dir, terminalColumns: 100 });
    expect((JSON.parse(json.stdout) as { artifacts: unknown[] }).artifacts).toHaveLength(LISTING_CAP + 400);
  });
});
