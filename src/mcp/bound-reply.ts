import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { formatFieldPath } from '../contracts/index.js';
import { MAX_REPLY_BYTES, MAX_REPLY_ITEMS } from './mcp-limits.js';

/** A text is never cut shorter than this: a path (at most 4,096 bytes) always stays whole. */
const MIN_TEXT_CHARS = 4096;
/** Enough rounds for any value: each round shortens towards the measured excess. */
const MAX_ROUNDS = 40;

/** A tool's value with its long lists and texts shortened, and what each shortening left out. */
interface Shortened {
  readonly value: unknown;
  readonly leftOut: Map<string, number>;
  /** The longest text and the longest list met, before shortening. */
  readonly longestText: number;
  readonly longestList: number;
  /** The characters of the texts and keys kept, and the number of values kept. */
  readonly chars: number;
  readonly nodes: number;
}

/**
 * A tool's result value bounded for the wire: every list cut to `MAX_REPLY_ITEMS`, then the longest texts (never
 * below 4,096 characters) and then the lists shortened until the result, structured content and its JSON text
 * together, fits `MAX_REPLY_BYTES`. `left_out` maps each shortened field's path to what it lost: items of a
 * list, characters of a text (which ends with a note saying so). A value that fits is returned as it is.
 */
export function boundReply<T extends object>(value: T): T {
  let items = MAX_REPLY_ITEMS;
  let chars = Number.POSITIVE_INFINITY;
  let shortened = shorten(value, items, chars);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const bytes = replyBytes(shortened);
    if (bytes <= MAX_REPLY_BYTES) break;
    // Aim a little under the limit: escaping makes the bytes of a text grow faster than its characters.
    const ratio = (MAX_REPLY_BYTES / bytes) * 0.9;
    if (Math.min(chars, shortened.longestText) > MIN_TEXT_CHARS) {
      chars = Math.max(MIN_TEXT_CHARS, Math.floor(Math.min(chars, shortened.longestText) * ratio));
    } else if (Math.min(items, shortened.longestList) > 1) {
      items = Math.max(1, Math.floor(Math.min(items, shortened.longestList) * ratio));
    } else {
      // Nothing left to shorten (a huge object of short fields): the transport's last guard answers it.
      break;
    }
    shortened = shorten(value, items, chars);
  }
  return (shortened.leftOut.size === 0 ? value : withLeftOut(shortened)) as T;
}

/**
 * An `isError` result bounded for the wire: each text cut (with a note) to its share of `MAX_REPLY_BYTES`, so
 * an error that echoes a huge argument still reaches the client.
 */
export function boundToolError(result: CallToolResult): CallToolResult {
  const share = Math.floor(MAX_REPLY_BYTES / 8 / Math.max(1, result.content.length));
  if (!result.content.some((item) => item.type === 'text' && item.text.length > share)) return result;
  return {
    ...result,
    content: result.content.map((item) =>
      item.type === 'text' && item.text.length > share
        ? { ...item, text: cutText(item.text, share).text }
        : item,
    ),
  };
}

/**
 * The bytes of the result `toolResult` makes of a shortened value (its JSON text, escaped in the line, and the
 * value itself), or a bound of them when that settles the question: every character is at least one byte in
 * each copy and at most 13 in both (a `\u0001` escape, escaped again in the text), plus indentation per node.
 */
function replyBytes(shortened: Shortened): number {
  const least = 2 * shortened.chars;
  const most = 13 * shortened.chars + 160 * shortened.nodes;
  if (least > MAX_REPLY_BYTES || most <= MAX_REPLY_BYTES) return least;
  const value = withLeftOut(shortened);
  const text = JSON.stringify(value, null, 2);
  return Buffer.byteLength(JSON.stringify(text), 'utf8') + Buffer.byteLength(JSON.stringify(value), 'utf8');
}

function withLeftOut(shortened: Shortened): unknown {
  const { value, leftOut } = shortened;
  if (leftOut.size === 0 || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return { ...value, left_out: Object.fromEntries(leftOut) };
}

/** A copy of `value` with lists cut to `maxItems` and texts to `maxChars`, walked without recursion. */
function shorten(value: unknown, maxItems: number, maxChars: number): Shortened {
  const leftOut = new Map<string, number>();
  let longestText = 0;
  let longestList = 0;
  let chars = 0;
  let nodes = 0;
  const root: { value: unknown } = { value: undefined };
  // Each entry: the original node, where its copy goes, and its path.
  const stack: { node: unknown; set: (copy: unknown) => void; path: readonly (string | number)[] }[] = [
    { node: value, set: (copy) => (root.value = copy), path: [] },
  ];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const { node, set, path } = entry;
    nodes++;
    if (typeof node === 'string') {
      longestText = Math.max(longestText, node.length);
      if (node.length > maxChars) {
        const cut = cutText(node, maxChars);
        leftOut.set(formatFieldPath(path), cut.left);
        set(cut.text);
        chars += cut.text.length;
      } else {
        set(node);
        chars += node.length;
      }
    } else if (Array.isArray(node)) {
      longestList = Math.max(longestList, node.length);
      const kept = node.slice(0, maxItems);
      if (node.length > kept.length) leftOut.set(formatFieldPath(path), node.length - kept.length);
      const copy: unknown[] = [];
      set(copy);
      kept.forEach((item, index) =>
        stack.push({ node: item, set: (child) => (copy[index] = child), path: [...path, index] }),
      );
    } else if (typeof node === 'object' && node !== null) {
      const copy: Record<string, unknown> = {};
      set(copy);
      for (const [key, item] of Object.entries(node)) {
        chars += key.length;
        // The key is placed now, so the copy keeps the original's order though its values are set later.
        setOwn(copy, key, undefined);
        stack.push({
          node: item,
          set: (child) => {
            setOwn(copy, key, child);
          },
          path: [...path, key],
        });
      }
    } else set(node);
  }
  return { value: root.value, leftOut, longestText, longestList, chars, nodes };
}

/** Sets an own property, even one named `__proto__` (a key JSON may hold), which `=` would not. */
function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `text` cut to about `maxChars`, never inside a surrogate pair, with a note of how many characters it lost. */
function cutText(text: string, maxChars: number): { readonly text: string; readonly left: number } {
  let end = maxChars;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  const left = text.length - end;
  return {
    text: `${text.slice(0, end)}… [${String(left)} more characters left out: an MCP reply holds at most ${String(MAX_REPLY_BYTES)} bytes]`,
    left,
  };
}
