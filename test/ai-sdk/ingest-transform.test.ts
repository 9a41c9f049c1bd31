import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { stepCountIs, streamText, tool } from 'ai';
import type { StreamTextTransform, TextStreamPart, ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ingestTransform } from '../../src/ai-sdk/index.js';
import type { IngestStreamEvent } from '../../src/index.js';
import {
  adapterOptions,
  collectEvents,
  entriesOf,
  ids,
  leftIn,
  manifestFile,
  postWrite,
} from '../helpers/ai-sdk-ingest.js';
import { gate, streamingModel, textStep } from '../helpers/ai-sdk-mock-model.js';
import type { ModelStreamPart } from '../helpers/ai-sdk-mock-model.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';

/** An answer with a nested fence (a 4-backtick block holding a 3-backtick one), a file, and a `../` escape. */
const answer = [
  '# Plan\n\n',
  fileBlock('md', 'README.md', 'Use it:\n\n```ts\ninner();\n```\n', '````'),
  '\n',
  fileBlock('ts', 'src/a.ts', 'export const a = 1;'),
  '\n',
  fileBlock('sh', '../escape.sh', 'echo out'),
].join('');

/** `text` cut into deltas of `size` characters, as a model streams it. */
function deltasOf(text: string, size: number): string[] {
  const deltas: string[] = [];
  for (let at = 0; at < text.length; at += size) deltas.push(text.slice(at, at + size));
  return deltas;
}

/** Runs streamText on `model` with `transforms`, and returns every part of its full stream, in order. */
async function fullStreamOf(
  model: ReturnType<typeof streamingModel>,
  transforms: StreamTextTransform<ToolSet>[],
  options: { abortSignal?: AbortSignal; onPart?: (part: TextStreamPart<ToolSet>) => Promise<void> } = {},
): Promise<TextStreamPart<ToolSet>[]> {
  const result = streamText({
    model,
    prompt: 'Write the plan.',
    experimental_transform: transforms,
    ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
    _internal: { now: () => 0, generateId: () => 'id-0' },
    // The error parts are what the tests look at; streamText's default onError would also log them.
    onError: () => undefined,
  });
  const parts: TextStreamPart<ToolSet>[] = [];
  for await (const part of result.fullStream) {
    parts.push(part);
    await options.onPart?.(part);
  }
  return parts;
}

/** A transform that records each part it sees, the very objects, and passes them on. */
function recorder(seen: unknown[]): StreamTextTransform<ToolSet> {
  return () =>
    new TransformStream({
      transform(part, controller) {
        seen.push(part);
        controller.enqueue(part);
      },
    });
}

describe('ingestTransform with streamText and the SDK mock model', () => {
  it('passes every part through unchanged and in order: the same objects, and the same full stream as without it', async () => {
    const chunks = textStep(0, deltasOf(answer, 7));
    const projectDir = await tempProject();
    const before: unknown[] = [];
    const after: unknown[] = [];
    const withIngest = await fullStreamOf(streamingModel([chunks]), [
      recorder(before),
      ingestTransform(adapterOptions(projectDir)),
      recorder(after),
    ]);
    const without = await fullStreamOf(streamingModel([chunks]), []);

    expect(after).toHaveLength(before.length);
    after.forEach((part, index) => {
      expect(part).toBe(before[index]);
    });
    expect(withIngest).toEqual(without);
    expect(withIngest.filter((part) => part.type === 'text-delta').map((part) => part.text)).toEqual(
      deltasOf(answer, 7),
    );
  });

  it('writes each file as the part that completes its closing fence line passes, while the model still holds the rest', async () => {
    const projectDir = await tempProject();
    const deltas = ['# Plan\n\n```ts file=src/a.ts\nexport const a = 1;\n``', '`\n', 'Then more text.\n'];
    const chunks = textStep(0, deltas);
    const closing = chunks.findIndex((part) => part.type === 'text-delta' && part.delta === '`\n');
    const held = gate();
    const released: number[] = [];
    const model = streamingModel([chunks], async (_step, index) => {
      // The model emits nothing after the closing fence line until the test has looked at the disk.
      if (index > closing) await held.opened;
      released.push(index);
    });
    const events: IngestStreamEvent[] = [];
    const file = path.join(projectDir, 'workspace/src/a.ts');
    const seenAtClose: { file: boolean; manifest: boolean; lastChunk: number; events: string[] }[] = [];
    const parts = await fullStreamOf(
      model,
      [ingestTransform(adapterOptions(projectDir, { onEvent: (e) => void events.push(e) }))],
      {
        onPart: async (part) => {
          if (part.type === 'text-delta' && part.text === '``') expect(existsSync(file)).toBe(false);
          if (part.type === 'text-delta' && part.text === '`\n') {
            seenAtClose.push({
              file: existsSync(file) && (await readFile(file, 'utf8')) === 'export const a = 1;\n',
              manifest: existsSync(path.join(projectDir, manifestFile)),
              lastChunk: Math.max(...released),
              events: events.map((event) => event.type),
            });
            held.open();
          }
        },
      },
    );

    expect(seenAtClose).toEqual([
      { file: true, manifest: false, lastChunk: closing, events: ['block.opened', 'block.written'] },
    ]);
    expect(parts.at(-1)?.type).toBe('finish');
    expect(events.map((event) => event.type)).toEqual(['block.opened', 'block.written', 'document.done']);
  });

  it('leaves what a post-write ingest of the same text leaves: nested fences kept, the ../ block rejected, nothing outside', async () => {
    const projectDir = await tempProject();
    const transform = ingestTransform(adapterOptions(projectDir));
    await fullStreamOf(streamingModel([textStep(0, deltasOf(answer, 5))]), [transform]);
    const done = await transform.done;

    expect(await leftIn(projectDir)).toEqual(await postWrite(answer));
    expect(await readFile(path.join(projectDir, 'workspace/README.md'), 'utf8')).toBe(
      'Use it:\n\n```ts\ninner();\n```\n',
    );
    expect(entriesOf(done)).toEqual([
      ['README.md', 'written', ''],
      ['src/a.ts', 'written', ''],
      ['../escape.sh', 'rejected', 'traversal'],
    ]);
    expect(done?.cutOff).toBe(false);
    expect((await readdir(projectDir)).sort()).toEqual(['.agent', 'docs', 'workspace']);
    expect(existsSync(path.join(projectDir, '..', 'escape.sh'))).toBe(false);
  });

  it('reports each event through onEvent and the end through onDone and done, the same document.done', async () => {
    const projectDir = await tempProject();
    const { events, ended, callbacks } = collectEvents();
    const transform = ingestTransform(adapterOptions(projectDir, callbacks));
    await fullStreamOf(streamingModel([textStep(0, deltasOf(answer, 11))]), [transform]);
    const done = await transform.done;

    expect(events.map((event) => event.type)).toEqual([
      'block.opened',
      'block.written',
      'block.opened',
      'block.written',
      'block.opened',
      'block.rejected',
      'document.done',
    ]);
    expect(ended).toEqual([done]);
    expect(events.at(-1)).toBe(done);
    expect(done?.manifestPath).toBe(manifestFile);
  });

  it('ingests a multi-step call as one document, each step on a new line, so a later step can open a block', async () => {
    const projectDir = await tempProject();
    const transform = ingestTransform(adapterOptions(projectDir));
    const model = streamingModel([
      textStep(0, ['Let me look it up.'], { toolName: 'lookup', input: '{"name":"a"}' }),
      textStep(1, ['```ts file=src/a.ts\n', 'export const a = 1;\n```\n']),
    ]);
    const result = streamText({
      model,
      prompt: 'Write a.',
      tools: {
        lookup: tool({
          inputSchema: z.object({ name: z.string() }),
          execute: ({ name }) => Promise.resolve(`${name} is 1`),
        }),
      },
      stopWhen: stepCountIs(2),
      experimental_transform: transform,
    });
    await result.consumeStream();
    const steps = await result.steps;
    const done = await transform.done;

    expect(steps.map((step) => step.text)).toEqual([
      'Let me look it up.',
      '```ts file=src/a.ts\nexport const a = 1;\n```\n',
    ]);
    const document = 'Let me look it up.\n```ts file=src/a.ts\nexport const a = 1;\n```\n';
    expect(await readFile(path.join(projectDir, ids.docPath), 'utf8')).toBe(document);
    expect(await leftIn(projectDir)).toEqual(await postWrite(document));
    expect(done?.manifest.summary).toMatchObject({ total_blocks: 1, written: 1 });
  });

  it('cuts the document off when the call is aborted mid-block: the closed block stays, nothing partial is written', async () => {
    const projectDir = await tempProject();
    const controller = new AbortController();
    const deltas = [
      fileBlock('ts', 'src/a.ts', 'export const a = 1;'),
      '```ts file=src/b.ts\n',
      'export const b',
    ];
    const chunks = textStep(0, [...deltas, ' = 2;\n```\n']);
    const lastSent = chunks.findIndex(
      (part) => part.type === 'text-delta' && part.delta === 'export const b',
    );
    const model = streamingModel([chunks], (_step, index) => {
      // The user aborts while the model is in the middle of src/b.ts.
      if (index === lastSent + 1) controller.abort(new Error('the user pressed stop'));
      return Promise.resolve();
    });
    const transform = ingestTransform(adapterOptions(projectDir));
    const parts = await fullStreamOf(model, [transform], { abortSignal: controller.signal });
    const done = await transform.done;

    expect(parts.map((part) => part.type)).toContain('abort');
    expect(parts.map((part) => part.type)).not.toContain('finish');
    expect(done?.cutOff).toBe(true);
    expect(done?.problems.map((problem) => problem.code)).toContain('cut_off');
    expect(done?.problems.find((problem) => problem.code === 'cut_off')?.message).toContain('aborted');
    expect(await readFile(path.join(projectDir, 'workspace/src/a.ts'), 'utf8')).toBe('export const a = 1;\n');
    expect(existsSync(path.join(projectDir, 'workspace/src/b.ts'))).toBe(false);
    // Nothing partial: a cut-off document is not saved.
    expect(existsSync(path.join(projectDir, ids.docPath))).toBe(false);
    expect(entriesOf(done)).toEqual([
      ['src/a.ts', 'written', ''],
      ['src/b.ts', 'skipped', 'unterminated'],
    ]);
  });

  it('cuts the document off at an error part, and still passes the error part and every part after it', async () => {
    const projectDir = await tempProject();
    const chunks: ModelStreamPart[] = [
      ...textStep(0, [fileBlock('ts', 'src/a.ts', 'a'), '```ts file=src/b.ts\nb\n']).slice(0, -2),
      { type: 'error', error: new Error('the provider is overloaded') },
    ];
    const transform = ingestTransform(adapterOptions(projectDir));
    const withIngest = await fullStreamOf(streamingModel([chunks]), [transform]);
    const without = await fullStreamOf(streamingModel([chunks]), []);
    const done = await transform.done;

    expect(withIngest).toEqual(without);
    expect(withIngest.map((part) => part.type)).toContain('error');
    expect(done?.cutOff).toBe(true);
    expect(done?.problems.find((problem) => problem.code === 'cut_off')?.message).toContain(
      'the provider is overloaded',
    );
    expect(existsSync(path.join(projectDir, 'workspace/src/a.ts'))).toBe(true);
    expect(existsSync(path.join(projectDir, 'workspace/src/b.ts'))).toBe(false);
    expect(existsSync(path.join(projectDir, ids.docPath))).toBe(false);
  });

  it('fails open: an ingest that fails is reported through onError, and the model stream goes on unchanged', async () => {
    const projectDir = await tempProject();
    const errors: Error[] = [];
    const chunks = textStep(0, deltasOf(answer, 9));
    const transform = ingestTransform(
      adapterOptions(projectDir, {
        // The manifest's clock fails when the document ends: the ingest stream errors.
        now: () => {
          throw new Error('the clock is broken');
        },
        onError: (error) => errors.push(error),
      }),
    );
    const withIngest = await fullStreamOf(streamingModel([chunks]), [transform]);
    const without = await fullStreamOf(streamingModel([chunks]), []);

    expect(withIngest).toEqual(without);
    expect(await transform.done).toBeUndefined();
    expect(errors.map((error) => error.message)).toEqual([
      "ingestTransform could not ingest docs/answer.md; the model's output goes on without it: the clock is broken",
    ]);
    // What was decided while streaming stays.
    expect(existsSync(path.join(projectDir, 'workspace/src/a.ts'))).toBe(true);
  });

  it('fails open when a callback throws: onError names it, every event still arrives, and the ingest ends', async () => {
    const projectDir = await tempProject();
    const errors: string[] = [];
    const seen: string[] = [];
    const transform = ingestTransform(
      adapterOptions(projectDir, {
        onEvent: (event) => {
          seen.push(event.type);
          if (event.type === 'block.written') throw new Error('the UI is gone');
        },
        onError: (error) => errors.push(error.message),
      }),
    );
    await fullStreamOf(streamingModel([textStep(0, deltasOf(answer, 13))]), [transform]);

    expect((await transform.done)?.manifest.summary).toMatchObject({ written: 2, rejected: 1 });
    expect(seen.at(-1)).toBe('document.done');
    expect(errors).toEqual([
      'the onEvent callback of ingestTransform threw: the UI is gone',
      'the onEvent callback of ingestTransform threw: the UI is gone',
    ]);
  });

  it('without onError, reports a failed ingest as a process warning', async () => {
    const projectDir = await tempProject();
    // Only the adapter's warning: another one (an experimental feature's) may come first.
    const warned = new Promise<Error>((resolve) => {
      const listener = (warning: Error & { code?: string }): void => {
        if (warning.code !== 'ARTIFACT_INGEST_AI_SDK') return;
        process.off('warning', listener);
        resolve(warning);
      };
      process.on('warning', listener);
    });
    const transform = ingestTransform(
      adapterOptions(projectDir, {
        now: () => {
          throw new Error('the clock is broken');
        },
      }),
    );
    await fullStreamOf(streamingModel([textStep(0, ['hello\n'])]), [transform]);
    const warning = await warned;

    expect(warning).toMatchObject({
      code: 'ARTIFACT_INGEST_AI_SDK',
      message: expect.stringContaining('could not ingest docs/answer.md') as string,
    });
  });

  it('cuts the document off when the reader cancels the stream', async () => {
    const projectDir = await tempProject();
    const transform = ingestTransform(adapterOptions(projectDir));
    const parts = new ReadableStream<TextStreamPart<ToolSet>>({
      start(controller) {
        controller.enqueue({ type: 'text-delta', id: 't', text: fileBlock('ts', 'src/a.ts', 'a') });
        controller.enqueue({ type: 'text-delta', id: 't', text: '```ts file=src/b.ts\nb\n' });
      },
    });
    const reader = parts.pipeThrough(transform({ tools: {}, stopStream: () => undefined })).getReader();
    await reader.read();
    await reader.read();
    await reader.cancel(new Error('the client went away'));
    const done = await transform.done;

    expect(done?.cutOff).toBe(true);
    expect(done?.problems.find((problem) => problem.code === 'cut_off')?.message).toContain(
      'the client went away',
    );
    expect(existsSync(path.join(projectDir, 'workspace/src/a.ts'))).toBe(true);
    expect(existsSync(path.join(projectDir, 'workspace/src/b.ts'))).toBe(false);
  });

  it('refuses misuse where it is made: a bad run id, a docPath outside the project, a second streamText call', async () => {
    const projectDir = await tempProject();
    expect(() => ingestTransform(adapterOptions(projectDir, { runId: '../x' }))).toThrow(/runId/);
    expect(() => ingestTransform(adapterOptions(projectDir, { docPath: '../outside.md' }))).toThrow(
      /not inside the project/,
    );
    const transform = ingestTransform(adapterOptions(projectDir));
    await fullStreamOf(streamingModel([textStep(0, ['hi\n'])]), [transform]);
    expect(() =>
      streamText({
        model: streamingModel([textStep(0, ['hi\n'])]),
        prompt: 'again',
        experimental_transform: transform,
      }),
    ).toThrow(
      'ingestTransform(...) serves one streamText call (it ingests one document, docs/answer.md); make one per call',
    );
  });
});
