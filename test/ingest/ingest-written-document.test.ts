import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryEventLog } from '../../src/events/index.js';
import { ingestManifestSchema, ingestWrittenDocument } from '../../src/ingest/index.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('ingestWrittenDocument', () => {
  it('ingests the given bytes with the caller source.kind and returns the summary and placed contents', async () => {
    const projectDir = await tempProject();
    const events = memoryEventLog();
    const { summary, contents } = await ingestWrittenDocument({
      projectDir,
      runId: parseRunId('wf'),
      nodeId: parseNodeId('implement-1'),
      docPath: 'docs/wf/implement-1.md',
      content: encode(`Done\n\n${fileBlock('ts', 'src/a.ts', 'export {};')}`),
      sourceKind: 'workflow',
      mode: 'single',
      events,
      durability: 'none',
    });
    expect(summary).toEqual({
      total_blocks: 1,
      written: 1,
      skipped: 0,
      rejected: 0,
      manifest_path: '.agent/runs/wf/manifests/implement-1.json',
      problems: [],
    });
    expect(contents.map((content) => [content.workspacePath, content.status])).toEqual([
      ['workspace/src/a.ts', 'written'],
    ]);
    const manifest = ingestManifestSchema.parse(
      JSON.parse(await readFile(path.join(projectDir, summary.manifest_path), 'utf8')),
    );
    expect(manifest.source.kind).toBe('workflow');
  });

  it('never throws: a misuse becomes an ingest.error event and an internal_error summary', async () => {
    const projectDir = await tempProject();
    const events = memoryEventLog();
    const { summary, contents } = await ingestWrittenDocument({
      projectDir,
      runId: parseRunId('wf'),
      nodeId: parseNodeId('s'),
      docPath: '../outside.md',
      content: encode('x'),
      sourceKind: 'workflow',
      mode: 'single',
      events,
    });
    expect(summary.problems).toEqual(['internal_error']);
    expect(contents).toEqual([]);
    expect(events.lines).toMatchObject([{ event: 'ingest.error', node_id: 's', code: 'internal_error' }]);
  });
});
