import type { NothingToIngestReason } from './ingest-node-summary.js';

/** The text to ingest from a state value, or why there is none. */
export type AnswerText =
  | { readonly found: true; readonly text: string }
  | { readonly found: false; readonly reason: NothingToIngestReason };

/**
 * The answer in a state value: a list of messages gives its last AI message's text, one message its text, a
 * string itself. A message is LangChain's (`type: 'ai'`, as `AIMessage.isInstance` checks) or a plain
 * `{ role: 'assistant', content }`; array content joins its text parts as `BaseMessage.text` does.
 */
export function answerText(value: unknown): AnswerText {
  if (typeof value === 'string') return textFound(value);
  if (Array.isArray(value)) {
    const message = value.findLast(isAiMessage);
    return message === undefined
      ? { found: false, reason: 'no_ai_message' }
      : textFound(contentText(message));
  }
  return isMessage(value) ? textFound(contentText(value)) : { found: false, reason: 'no_ai_message' };
}

interface MessageLike {
  readonly content: unknown;
  readonly type?: unknown;
  readonly role?: unknown;
}

function isMessage(value: unknown): value is MessageLike {
  return typeof value === 'object' && value !== null && 'content' in value;
}

function isAiMessage(value: unknown): value is MessageLike {
  return isMessage(value) && (value.type === 'ai' || value.role === 'assistant');
}

/** Only the text parts count: tool calls, images and reasoning parts are not the answer's markdown. */
function contentText(message: MessageLike): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content as unknown[]) if (isTextPart(part)) text += part.text;
  return text;
}

function isTextPart(part: unknown): part is { readonly type: 'text'; readonly text: string } {
  return (
    typeof part === 'object' &&
    part !== null &&
    'type' in part &&
    part.type === 'text' &&
    'text' in part &&
    typeof part.text === 'string'
  );
}

function textFound(text: string): AnswerText {
  // An answer of tool calls only has no document to save: saving '' would empty an earlier answer's document.
  return text === '' ? { found: false, reason: 'no_text' } : { found: true, text };
}
