import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryEventLog } from '../../../src/events/index.js';
import { parseNodeId, parseRunId, type FenceParser } from '../../../src/project/index.js';
import { submitDocumentBlocks } from '../../../src/runtime/run/node/submit-document-blocks.js';
import { hostileNestedLists } from '../../helpers/hostile-markdown.js';
import { tempProject } from '../../helpers/temp-project.js';
import { artifactDocument, DEVELOPMENT_RESULT } from './fixtures/contract-fixtures.js';

async function submit(text: string, timeLimitMs?: number, parser?: FenceParser) {
  const projectDir = await tempProject({ '.agent/runs/r/.keep': '' });
  const events = memoryEventLog({ run_id: 'r' });
  const submissions = await submitDocumentBlocks({
    projectDir,
    runId: parseRunId('r'),
    nodeId: parseNodeId('n'),
    agentId: 'builder',
    text,
    events,
    durability: 'none',
    ...(timeLimitMs === undefined ? {} : { timeLimitMs }),
    ...(parser === undefined ? {} : { parser }),
  });
  return { projectDir, submissions, events };
}

describe('submitDocumentBlocks', () => {
  it('refuses the blocks of a document whose parse overran max_parse_ms, with an artifact.refused event', async () => {
    const { submissions, events } = await submit(
      hostileNestedLists(artifactDocument('development_result', DEVELOPMENT_RESULT)),
      300,
      'micromark',
    );
    expect(submissions).toEqual([
      {
        accepted: false,
        type: '',
        errors: [
          expect.objectContaining({ got: 'a document that took over max_parse_ms (300 ms) to parse' }),
        ],
      },
    ]);
    expect(events.lines.filter((line) => line.event === 'artifact.refused')).toEqual([
      expect.objectContaining({ node_id: 'n', code: 'too_complex' }),
    ]);
  });

  it('submits the block of the same document with the scanner, the default parser, within the same limit', async () => {
    const { submissions } = await submit(
      hostileNestedLists(artifactDocument('development_result', DEVELOPMENT_RESULT)),
      300,
    );
    expect(submissions).toEqual([expect.objectContaining({ accepted: true, type: 'development_result' })]);
  });

  it('submits a valid block through the canonical path', async () => {
    const { projectDir, submissions } = await submit(
      artifactDocument('development_result', DEVELOPMENT_RESULT),
    );
    expect(submissions).toEqual([
      {
        accepted: true,
        type: 'development_result',
        path: '.agent/artifacts/r/development_result.json',
        payload: DEVELOPMENT_RESULT,
      },
    ]);
    const written = await readFile(
      path.join(projectDir, '.agent/artifacts/r/development_result.json'),
      'utf8',
    );
    expect(JSON.parse(written)).toEqual(DEVELOPMENT_RESULT);
  });

  it.each([
    ['a block that is not JSON', artifactDocument('issues', '{ issues: [] }'), 'one JSON object'],
    ['a block for an unknown type', artifactDocument('test_report', '{}'), 'a contract type'],
    [
      'a block cut off before its closing fence',
      '```json artifact=issues\n{"issues": []}\n',
      'a closed ```json block',
    ],
    ['a payload that breaks the schema', artifactDocument('issues', '{"issues": [], "extra": 1}'), 'extra'],
  ])('refuses %s with a field error, never throwing', async (_name, text, expected) => {
    const { projectDir, submissions, events } = await submit(text);
    expect(submissions).toHaveLength(1);
    const [refused] = submissions;
    expect(refused?.accepted).toBe(false);
    if (refused === undefined || refused.accepted) return;
    expect(refused.errors.map((error) => error.message).join('\n')).toContain(expected);
    expect(events.lines.map((line) => line.event)).toEqual(['artifact.refused']);
    await expect(readFile(path.join(projectDir, '.agent/artifacts/r/issues.json'))).rejects.toThrow();
  });

  it('refuses the artifact= blocks past max_blocks with one submission and one event that count them', async () => {
    // 1 MiB of invalid blocks was 36,157 refused submissions and artifact.refused lines (17 MB of events).
    const block = '```json artifact=plan\n{}\n```\n';
    const { submissions, events } = await submit(block.repeat(Math.floor((1024 * 1024) / block.length)));
    expect(submissions).toHaveLength(501);
    expect(submissions.at(-1)).toEqual({
      accepted: false,
      type: '',
      errors: [
        expect.objectContaining({
          got: '35657 more artifact= blocks after the first 500 candidate blocks (max_blocks), not read',
        }),
      ],
    });
    const refused = events.lines.filter((line) => line.event === 'artifact.refused');
    expect(refused).toHaveLength(501);
    expect(refused.at(-1)).toMatchObject({ code: 'too_many_blocks', omitted: 35_657 });
  });

  it('finds nothing in a document without artifact blocks, even one with other json fences', async () => {
    const { submissions } = await submit('# Doc\n\n```json file=workspace/a.json\n{}\n```\n');
    expect(submissions).toEqual([]);
  });
});
