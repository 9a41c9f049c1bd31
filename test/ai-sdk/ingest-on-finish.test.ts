import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ingestOnFinish, ingestTransform } from '../../src/ai-sdk/index.js';
import {
  adapterOptions,
  collectEvents,
  entriesOf,
  ids,
  leftIn,
  postWrite,
} from '../helpers/ai-sdk-ingest.js';
import { generatingModel, streamingModel, textStep } from '../helpers/ai-sdk-mock-model.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';

const answer = `# Plan\n\n${fileBlock('md', 'README.md', '```ts\ninner();\n```\n', '````')}\n${fileBlock('ts', 'src/a.ts', 'export const a = 1;')}\n${fileBlock('sh', '../escape.sh', 'echo out')}`;

const lookup = {
  lookup: tool({
    inputSchema: z.object({ name: z.string() }),
    execute: ({ name }) => Promise.resolve(`${name} is 1`),
  }),
};

describe('ingestOnFinish with generateText and the SDK mock model', () => {
  it('ingests the finished text: what a post-write ingest leaves, reported through onEvent, onDone and done', async () => {
    const projectDir = await tempProject();
    const { events, ended, callbacks } = collectEvents();
    const onFinish = ingestOnFinish(adapterOptions(projectDir, callbacks));
    const result = await generateText({
      model: generatingModel([[{ type: 'text', text: answer }]]),
      prompt: 'Write the plan.',
      onFinish,
    });
    // generateText awaits its onFinish: the document is ingested when it resolves.
    expect(ended).toHaveLength(1);
    const done = await onFinish.done;

    expect(result.text).toBe(answer);
    expect(ended).toEqual([done]);
    expect(await leftIn(projectDir)).toEqual(await postWrite(answer));
    expect(entriesOf(done)).toEqual([
      ['README.md', 'written', ''],
      ['src/a.ts', 'written', ''],
      ['../escape.sh', 'rejected', 'traversal'],
    ]);
    expect(await readFile(path.join(projectDir, 'workspace/README.md'), 'utf8')).toBe(
      '```ts\ninner();\n```\n',
    );
    expect(existsSync(path.join(projectDir, 'escape.sh'))).toBe(false);
    expect(events.map((event) => event.type)).toEqual([
      'block.opened',
      'block.written',
      'block.opened',
      'block.written',
      'block.opened',
      'block.rejected',
      'document.done',
    ]);
  });

  it('ingests a multi-step call as ingestTransform does: the same document and manifest from both adapters', async () => {
    const first = 'I will look it up.';
    const second = fileBlock('ts', 'src/a.ts', 'export const a = 1;');
    const generated = await tempProject();
    const onFinish = ingestOnFinish(adapterOptions(generated));
    const result = await generateText({
      model: generatingModel([
        [
          { type: 'text', text: first },
          { type: 'tool-call', toolCallId: 'call-0', toolName: 'lookup', input: '{"name":"a"}' },
        ],
        [{ type: 'text', text: second }],
      ]),
      prompt: 'Write a.',
      tools: lookup,
      stopWhen: stepCountIs(2),
      onFinish,
    });

    const streamed = await tempProject();
    const transform = ingestTransform(adapterOptions(streamed));
    await streamText({
      model: streamingModel([
        textStep(0, [first], { toolName: 'lookup', input: '{"name":"a"}' }),
        textStep(1, [second.slice(0, 10), second.slice(10)]),
      ]),
      prompt: 'Write a.',
      tools: lookup,
      stopWhen: stepCountIs(2),
      experimental_transform: transform,
    }).consumeStream();

    // The final `text` is the last step's; the document holds every step's, each on a new line.
    expect(result.text).toBe(second);
    expect((await onFinish.done)?.manifest.summary).toMatchObject({ total_blocks: 1, written: 1 });
    expect(await leftIn(generated)).toEqual(await postWrite(`${first}\n${second}`));
    expect(await leftIn(streamed)).toEqual(await leftIn(generated));
  });

  it("works as streamText's onFinish too", async () => {
    const projectDir = await tempProject();
    const onFinish = ingestOnFinish(adapterOptions(projectDir));
    await streamText({
      model: streamingModel([textStep(0, [answer.slice(0, 30), answer.slice(30)])]),
      prompt: 'Write the plan.',
      onFinish,
    }).consumeStream();
    await onFinish.done;

    expect(await leftIn(projectDir)).toEqual(await postWrite(answer));
  });

  it('fails open: a failed ingest and a throwing onDone go to onError, and generateText still resolves', async () => {
    const projectDir = await tempProject();
    const errors: string[] = [];
    const failing = ingestOnFinish(
      adapterOptions(projectDir, {
        now: () => {
          throw new Error('the clock is broken');
        },
        onError: (error) => errors.push(error.message),
      }),
    );
    const result = await generateText({
      model: generatingModel([[{ type: 'text', text: answer }]]),
      prompt: 'Write the plan.',
      onFinish: failing,
    });
    expect(result.text).toBe(answer);
    expect(await failing.done).toBeUndefined();

    const other = await tempProject();
    const throwing = ingestOnFinish(
      adapterOptions(other, {
        onDone: () => {
          throw new Error('the UI is gone');
        },
        onError: (error) => errors.push(error.message),
      }),
    );
    await generateText({
      model: generatingModel([[{ type: 'text', text: answer }]]),
      prompt: 'Write the plan.',
      onFinish: throwing,
    });
    expect((await throwing.done)?.manifest.summary).toMatchObject({ written: 2, rejected: 1 });
    expect(errors).toEqual([
      `ingestOnFinish could not ingest ${ids.docPath}; the model's output goes on without it: the clock is broken`,
      'the onDone callback of ingestOnFinish threw: the UI is gone',
    ]);
  });

  it('refuses a second call: one value ingests one document', async () => {
    const projectDir = await tempProject();
    const onFinish = ingestOnFinish(adapterOptions(projectDir));
    await onFinish({ text: 'first\n' });
    await expect(onFinish({ text: 'second\n' })).rejects.toThrow(
      'ingestOnFinish(...) serves one model call (it ingests one document, docs/answer.md); make one per call',
    );
    expect(await readFile(path.join(projectDir, ids.docPath), 'utf8')).toBe('first\n');
  });
});
