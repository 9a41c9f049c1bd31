import { describe, expect, it } from 'vitest';
import { readProjectRecords, readVersionsById } from '../../../src/artifacts/store/index.js';
import { recordRun } from '../../helpers/recorded-run.js';
import { tempProject } from '../../helpers/temp-project.js';

describe('readVersionsById', () => {
  it('maps every version record of every run by its artifact id, and no trace', async () => {
    const project = await tempProject();
    const first = await recordRun(project, 'run-a');
    const second = await recordRun(project, 'run-b', { startAt: '2026-02-25T10:00:00.000Z', apiText: 'v2' });
    const versions = await readVersionsById(project);
    const expected = [...first, ...second].filter((record) => record.type !== 'trace');
    expect(expected.length).toBeGreaterThan(0);
    expect([...versions.keys()].sort()).toEqual([...new Set(expected.map((r) => r.artifactId))].sort());
    for (const record of expected)
      expect(versions.get(record.artifactId)?.contentHash).toBe(record.contentHash);
    expect([...versions.values()].some((record) => record.type === 'trace')).toBe(false);
    // Every previous link of the second run is found among them, though it points into the first run.
    const links = second.flatMap((record) =>
      record.metadata.previous === undefined ? [] : [record.metadata.previous],
    );
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect(versions.has(link)).toBe(true);
    expect((await readProjectRecords(project)).runs).toEqual(['run-a', 'run-b']);
  });

  it('is empty for a project without runs', async () => {
    expect((await readVersionsById(await tempProject())).size).toBe(0);
  });
});
