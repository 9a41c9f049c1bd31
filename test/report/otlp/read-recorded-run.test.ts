import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRecordedRun } from '../../../src/report/index.js';
import { createMemoryStore, ingestDocument, openProject } from '../../../src/index.js';
import { ATTR, FILE_EVENT, runSpansOf } from '../../../src/telemetry/index.js';
import { fileBlock, tempProject } from '../../helpers/temp-project.js';

const scratch: string[] = [];
afterEach(async () => {
  await Promise.all(scratch.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('readRecordedRun', () => {
  it('reads a run through the store port: a project whose runs are kept in a memory store', async () => {
    const dir = await tempProject({
      'docs/a.md': `# a\n\n${fileBlock('ts', 'src/x.ts', 'export const x = 1;\n')}`,
    });
    scratch.push(dir);
    const project = openProject(dir, { store: createMemoryStore() });
    await ingestDocument({ projectDir: project, docPath: 'docs/a.md', runId: 'r1', nodeId: 'n1' });
    await writeFile(
      path.join(dir, 'docs/a.md'),
      `# a\n\n${fileBlock('ts', 'src/x.ts', 'export const x = 2;\n')}`,
    );
    await ingestDocument({ projectDir: project, docPath: 'docs/a.md', runId: 'r1', nodeId: 'n2' });

    const { recorded, problems } = await readRecordedRun(project, 'r1');
    expect(problems).toEqual([]);
    expect(existsSync(path.join(dir, '.agent'))).toBe(false);
    expect(recorded.steps.map((step) => [step.id, step.ingest?.startedAt === undefined])).toEqual([
      ['n1', false],
      ['n2', false],
    ]);
    const spans = runSpansOf(recorded);
    const root = spans.find((span) => span.parentSpanId === null);
    expect(root?.attributes[ATTR.runKind]).toBe('ingest');
    const ingests = spans.filter((span) => span.name === 'ingest docs/a.md');
    expect(ingests).toHaveLength(2);
    expect(
      ingests.map((span) => span.events.map((event) => [event.name, event.attributes[ATTR.fileStatus]])),
    ).toEqual([[[FILE_EVENT, 'written']], [[FILE_EVENT, 'written']]]);
    // The ingest's times are its events', inside its step.
    for (const ingest of ingests)
      expect(Date.parse(ingest.endTime)).toBeGreaterThanOrEqual(Date.parse(ingest.startTime));
  });
});
