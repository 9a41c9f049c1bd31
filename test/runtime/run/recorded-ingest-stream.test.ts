import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createIngestStream, ingestDocument } from '../../../src/index.js';
import { fileBlock, tempProject } from '../../helpers/temp-project.js';

const ids = { runId: 'run-1', nodeId: 'plan', docPath: 'docs/plan.md', durability: 'none' } as const;
const now = (): Date => new Date('2026-11-28T12:00:00.000Z');

/** The run's artifact records, one object per line. */
async function recordsOf(projectDir: string): Promise<unknown[]> {
  const text = await readFile(path.join(projectDir, '.agent/runs/run-1/artifacts.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);
}

describe('createIngestStream (the library export)', () => {
  it('records the files it placed as ingestDocument records them, only the last version of a repeated path', async () => {
    const text = [
      fileBlock('ts', 'src/a.ts', 'v1'),
      fileBlock('ts', 'src/b.ts', 'b'),
      fileBlock('ts', 'src/a.ts', 'v2'),
      '```ts file=../out.ts\nx\n```\n',
    ].join('\n');
    const postWritten = await tempProject({ [ids.docPath]: text });
    await ingestDocument({ projectDir: postWritten, ...ids, now });

    const streamedDir = await tempProject();
    const stream = createIngestStream({ projectDir: streamedDir, ...ids, now });
    const writer = stream.writable.getWriter();
    const reading = stream.readable.pipeTo(new WritableStream());
    for (let at = 0; at < text.length; at += 5) await writer.write(text.slice(at, at + 5));
    await writer.close();
    await reading;

    const records = await recordsOf(streamedDir);
    expect(records).toEqual(await recordsOf(postWritten));
    expect(records).toMatchObject([{ path: 'workspace/src/b.ts' }, { path: 'workspace/src/a.ts' }]);
  });
});
