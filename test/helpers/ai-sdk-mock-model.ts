import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

/** One part of a language model's stream, as the AI SDK's provider interface (v3) has it. */
export type ModelStreamPart =
  Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer Part>
    ? Part
    : never;

/** One piece of a generated answer's content, as `doGenerate` returns it. */
export type ModelContent = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>['content'][number];

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 20, text: 20, reasoning: 0 },
};

/** The stream of one step that answers with text in the given deltas, then a tool call or a stop. */
export function textStep(
  step: number,
  deltas: readonly string[],
  toolCall?: { readonly toolName: string; readonly input: string },
): ModelStreamPart[] {
  const id = `text-${String(step)}`;
  return [
    { type: 'stream-start', warnings: [] },
    {
      type: 'response-metadata',
      id: `response-${String(step)}`,
      modelId: 'mock-model',
      timestamp: new Date(Date.UTC(2026, 10, 28, 12, 0, step)),
    },
    { type: 'text-start', id },
    ...deltas.map((delta): ModelStreamPart => ({ type: 'text-delta', id, delta })),
    { type: 'text-end', id },
    ...(toolCall === undefined
      ? []
      : [{ type: 'tool-call', toolCallId: `call-${String(step)}`, ...toolCall } as const]),
    {
      type: 'finish',
      finishReason:
        toolCall === undefined
          ? { unified: 'stop', raw: 'stop' }
          : { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
    },
  ];
}

/**
 * The SDK's own mock model streaming `steps` (one model call per step), each chunk through
 * `simulateReadableStream`; `beforeChunk(step, index)` runs before chunk `index` of `step` is emitted, so a test
 * can hold the model mid-answer.
 */
export function streamingModel(
  steps: readonly (readonly ModelStreamPart[])[],
  beforeChunk: (step: number, index: number) => Promise<void> = () => Promise.resolve(),
): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: steps.map((chunks, step) => {
      let index = 0;
      return {
        stream: simulateReadableStream({
          chunks: [...chunks],
          _internal: { delay: () => beforeChunk(step, index++) },
        }),
      };
    }),
  });
}

/** The SDK's own mock model answering each step (one model call per step) with `content`, at once. */
export function generatingModel(steps: readonly (readonly ModelContent[])[]): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: steps.map((content, step) => ({
      content: [...content],
      finishReason: content.some((part) => part.type === 'tool-call')
        ? { unified: 'tool-calls' as const, raw: 'tool_calls' }
        : { unified: 'stop' as const, raw: 'stop' },
      usage,
      warnings: [],
      response: {
        id: `response-${String(step)}`,
        modelId: 'mock-model',
        timestamp: new Date(Date.UTC(2026, 10, 28, 12, 0, step)),
      },
    })),
  });
}

/** A promise with its resolve, to hold a model until a test has looked. */
export function gate(): { readonly opened: Promise<void>; readonly open: () => void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
