import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { REPO, runProgram } from './packed-package.js';
import type { PackedPackage } from './packed-package.js';

/**
 * A user's script against the installed `artifact-ingest/ai-sdk` and whatever `ai` resolves from the packed project:
 * streamText with ingestTransform (noting, at each text part, whether src/a.ts is on disk yet), then generateText
 * with ingestOnFinish, both on the SDK's own mock model (`mockClass` from `ai/test`).
 */
function consumerScript(mockClass: string): string {
  return `
import { existsSync, readFileSync } from 'node:fs';
import { generateText, simulateReadableStream, streamText } from 'ai';
import { ${mockClass} as MockModel } from 'ai/test';
import { ingestOnFinish, ingestTransform } from 'artifact-ingest/ai-sdk';

const block = (file) => '\`\`\`ts file=' + file + '\\nexport const a = 1;\\n\`\`\`\\n';
const deltas = ['# Plan\\n\\n', block('src/a.ts').slice(0, 20), block('src/a.ts').slice(20), 'Done.\\n', block('../escape.ts')];
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const finishReason = { unified: 'stop', raw: 'stop' };
const model = new MockModel({
  doStream: {
    stream: simulateReadableStream({
      chunks: [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't' },
        ...deltas.map((delta) => ({ type: 'text-delta', id: 't', delta })),
        { type: 'text-end', id: 't' },
        { type: 'finish', finishReason, usage },
      ],
    }),
  },
  doGenerate: { content: [{ type: 'text', text: block('src/b.ts') }], finishReason, usage, warnings: [] },
});
const ids = { projectDir: process.cwd(), runId: 'run-1', durability: 'none' };

const events = [];
const transform = ingestTransform({ ...ids, docPath: 'docs/streamed.md', nodeId: 'streamed', onEvent: (event) => { events.push(event.type); } });
const onDiskAtEachDelta = [];
let text = '';
for await (const part of streamText({ model, prompt: 'Plan.', experimental_transform: transform }).fullStream) {
  if (part.type === 'text-delta') {
    text += part.text;
    onDiskAtEachDelta.push(existsSync('workspace/src/a.ts'));
  }
}
const streamed = await transform.done;

const onFinish = ingestOnFinish({ ...ids, docPath: 'docs/generated.md', nodeId: 'generated' });
const generatedText = (await generateText({ model, prompt: 'Plan.', onFinish })).text;
const generated = await onFinish.done;

process.stdout.write(JSON.stringify({
  aiVersion: JSON.parse(readFileSync(new URL(import.meta.resolve('ai/package.json')), 'utf8')).version,
  events,
  onDiskAtEachDelta,
  streamed: streamed.manifest.summary,
  cutOff: streamed.cutOff,
  savedAsStreamed: readFileSync('docs/streamed.md', 'utf8') === text,
  a: readFileSync('workspace/src/a.ts', 'utf8'),
  escaped: existsSync('escape.ts'),
  generated: generated.manifest.summary,
  b: readFileSync('workspace/src/b.ts', 'utf8'),
  savedAsGenerated: readFileSync('docs/generated.md', 'utf8') === generatedText,
}));
`;
}

/** What {@link consumerScript} prints when the adapter works. */
const EXPECTED = {
  aiVersion: expect.any(String) as unknown,
  events: ['block.opened', 'block.written', 'block.opened', 'block.rejected', 'document.done'],
  onDiskAtEachDelta: [false, false, true, true, true],
  streamed: { total_blocks: 2, written: 1, skipped: 0, rejected: 1 },
  cutOff: false,
  savedAsStreamed: true,
  a: 'export const a = 1;\n',
  escaped: false,
  generated: { total_blocks: 1, written: 1, skipped: 0, rejected: 0 },
  b: 'export const a = 1;\n',
  savedAsGenerated: true,
};

/**
 * A TypeScript user's file: the adapters' published types fit streamText's and generateText's options (tools
 * included), and they are real types, not `any` from an `ai` that did not resolve (the @ts-expect-error lines).
 */
const TYPED_CONSUMER = `
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import type { LanguageModel } from 'ai';
import { ingestOnFinish, ingestTransform } from 'artifact-ingest/ai-sdk';
import type { IngestDone, IngestStreamEvent } from 'artifact-ingest/ai-sdk';

declare const model: LanguageModel;
const tools = {
  lookup: tool({
    inputSchema: jsonSchema<{ name: string }>({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }),
    execute: ({ name }) => Promise.resolve(name),
  }),
};
const ids = { projectDir: '.', docPath: 'docs/a.md', runId: 'run-1', nodeId: 'a' };

const transform = ingestTransform({ ...ids, onEvent: (event: IngestStreamEvent) => console.log(event.type) });
await streamText({ model, prompt: 'x', tools, stopWhen: stepCountIs(2), experimental_transform: transform }).consumeStream();
await streamText({ model, prompt: 'x', experimental_transform: [ingestTransform(ids)] }).consumeStream();
const done: IngestDone | undefined = await transform.done;
console.log(done?.manifest.summary.written);
await generateText({ model, prompt: 'x', tools, onFinish: ingestOnFinish(ids) });
await streamText({ model, prompt: 'x', onFinish: ingestOnFinish(ids) }).consumeStream();

// @ts-expect-error the transform's writable side takes the SDK's stream parts, not strings
await transform({ tools, stopStream: () => undefined }).writable.getWriter().write('text');
// @ts-expect-error nodeId is required
ingestTransform({ projectDir: '.', docPath: 'docs/a.md', runId: 'run-1' });
`;

/**
 * Makes `aiDir` (an installed `ai` package folder) the `ai` of the packed project, as a user's install would place
 * it; without it, the project's `ai` is the repository's (the devDependency).
 */
export async function useAi(packed: PackedPackage, aiDir: string): Promise<void> {
  await mkdir(path.join(packed.project, 'node_modules'), { recursive: true });
  await symlink(aiDir, path.join(packed.project, 'node_modules', 'ai'), 'dir');
}

/** Runs the user's script in the packed project with this `node`, and checks what it printed and which `ai` ran. */
export async function expectConsumerWorks(
  packed: PackedPackage,
  mockClass: string,
  aiMajor: number,
): Promise<void> {
  const script = path.join(packed.project, 'ai-sdk-consumer.mjs');
  await writeFile(script, consumerScript(mockClass));
  const result = await runProgram(process.execPath, [script], { cwd: packed.project });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const printed = JSON.parse(result.stdout) as { aiVersion: string };
  expect(printed).toEqual(EXPECTED);
  expect(printed.aiVersion.split('.')[0]).toBe(String(aiMajor));
}

/** Type-checks the TypeScript user's file in the packed project with the repository's tsc, against the `ai` in `aiDir`. */
export async function expectConsumerTypeChecks(packed: PackedPackage, aiDir: string): Promise<void> {
  await writeFile(path.join(packed.project, 'ai-sdk-typed.mts'), TYPED_CONSUMER);
  await writeFile(
    path.join(packed.project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        exactOptionalPropertyTypes: true,
        target: 'ES2023',
        lib: ['ES2023'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        types: ['node'],
        typeRoots: [path.join(REPO, 'node_modules', '@types')],
        skipLibCheck: true,
        noEmit: true,
      },
      files: ['ai-sdk-typed.mts'],
    }),
  );
  const tsc = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await runProgram(process.execPath, [tsc, '-p', 'tsconfig.json', '--listFiles'], {
    cwd: packed.project,
  });
  // --listFiles prints absolute paths; anything else is a diagnostic.
  const printed = result.stdout.split('\n').filter((line) => line !== '');
  expect(printed.filter((line) => !line.startsWith('/'))).toEqual([]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  // The published types were checked against the `ai` meant, not another one up the folders.
  expect(printed).toContain(path.join(await realpath(aiDir), 'dist', 'index.d.ts'));
}
