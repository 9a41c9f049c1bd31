import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { answerText } from '../../src/langgraph/answer-text.js';

const human = new HumanMessage('write it');
const ai = (content: AIMessage['content']): AIMessage => new AIMessage({ content });

describe('answerText', () => {
  it.each<[string, unknown, string]>([
    ['the last AI message of a list', [human, ai('first'), human, ai('second')], 'second'],
    [
      'the last AI message before a tool message',
      [human, ai('answer'), new ToolMessage({ content: 'ok', tool_call_id: 'c' })],
      'answer',
    ],
    ['an AI message chunk', [human, new AIMessageChunk({ content: 'chunked' })], 'chunked'],
    [
      'text parts joined, other parts left out',
      [
        ai([
          { type: 'text', text: 'a' },
          { type: 'image_url', image_url: { url: 'https://x.test/i.png' } },
          { type: 'text', text: 'b' },
        ]),
      ],
      'ab',
    ],
    [
      'a plain assistant message',
      [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'plain' },
      ],
      'plain',
    ],
    ['a plain serialized AI message', [{ type: 'ai', content: [{ type: 'text', text: 'dict' }] }], 'dict'],
    ['one message', ai('single'), 'single'],
    ['a string', '# doc\n', '# doc\n'],
  ])('reads %s', (_, value, text) => {
    expect(answerText(value)).toEqual({ found: true, text });
  });

  it.each<[string, unknown, string]>([
    ['a list without an AI message', [human], 'no_ai_message'],
    ['an empty list', [], 'no_ai_message'],
    ['a missing key', undefined, 'no_ai_message'],
    ['a number', 42, 'no_ai_message'],
    ['an AI message of tool calls only', [ai('')], 'no_text'],
    [
      'an AI message whose parts hold no text',
      [ai([{ type: 'image_url', image_url: { url: 'https://x.test/i.png' } }])],
      'no_text',
    ],
    ['an empty string', '', 'no_text'],
  ])('finds nothing in %s', (_, value, reason) => {
    expect(answerText(value)).toEqual({ found: false, reason });
  });

  it('agrees with BaseMessage.text on array content', () => {
    const message = ai([
      { type: 'text', text: 'x\n' },
      { type: 'text', text: '```ts file=a.ts\n```\n' },
    ]);
    expect(answerText([message])).toEqual({ found: true, text: message.text });
  });
});
