/** JSON text nested deeper than allowed: where it first went too deep, and the text with every such part cut. */
export interface TooDeepJson {
  /** The path (keys and indexes from the root) of the first object or array one level below the limit. */
  readonly path: readonly (string | number)[];
  /** The text with each object or array below the limit replaced by `null`: safe to parse, same shape above. */
  readonly pruned: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
/** Keys longer than this are shown cut in a path. */
const MAX_KEY_CHARS = 100;

/**
 * Measures how deep the objects and arrays of JSON `text` nest, in one pass without recursion or parsing
 * (`JSON.parse` of a million-deep array takes seconds and a hundred megabytes): `undefined` when no part is deeper
 * than `maxDepth` (the root object or array is level 1), else the first path that is and the text cut to the
 * limit. Text that is not JSON is measured as well as it can be; `JSON.parse` judges it afterwards.
 */
export function scanJsonNesting(text: string, maxDepth: number): TooDeepJson | undefined {
  // For each open level up to the limit: an array's current index, an object's current key (its span in text).
  const isArray: boolean[] = [];
  const index: number[] = [];
  const keyStart: number[] = [];
  const keyEnd: number[] = [];
  let expectKey = false;
  let depth = 0;
  let path: (string | number)[] | undefined;
  const kept: string[] = [];
  let keptUpTo = 0;
  let cutFrom = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      const end = stringEnd(text, at);
      if (end === -1) break;
      if (expectKey && depth <= maxDepth) {
        keyStart[depth - 1] = at;
        keyEnd[depth - 1] = end + 1;
        expectKey = false;
      }
      at = end;
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      depth++;
      if (depth <= maxDepth) {
        isArray[depth - 1] = code === OPEN_ARRAY;
        index[depth - 1] = 0;
        expectKey = code === OPEN_OBJECT;
      } else if (depth === maxDepth + 1) {
        path ??= pathTo(text, maxDepth, isArray, index, keyStart, keyEnd);
        cutFrom = at;
      }
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      if (depth === maxDepth + 1) {
        kept.push(text.slice(keptUpTo, cutFrom), 'null');
        keptUpTo = at + 1;
      }
      depth = Math.max(0, depth - 1);
      expectKey = false;
    } else if (code === COMMA && depth >= 1 && depth <= maxDepth) {
      if (isArray[depth - 1] === true) index[depth - 1] = (index[depth - 1] ?? 0) + 1;
      else expectKey = true;
    }
  }
  if (path === undefined) return undefined;
  // An object or array still open at the end (text that is not JSON) is cut all the same.
  if (depth > maxDepth) kept.push(text.slice(keptUpTo, cutFrom), 'null');
  else kept.push(text.slice(keptUpTo));
  return { path, pruned: kept.join('') };
}

/** The index of the quote that closes the string opening at `start`, or -1 when it never closes. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

function pathTo(
  text: string,
  levels: number,
  isArray: readonly boolean[],
  index: readonly number[],
  keyStart: readonly number[],
  keyEnd: readonly number[],
): (string | number)[] {
  const path: (string | number)[] = [];
  for (let level = 0; level < levels; level++) {
    if (isArray[level] === true) path.push(index[level] ?? 0);
    else path.push(keyText(text, keyStart[level] ?? 0, keyEnd[level] ?? 0));
  }
  return path;
}

/** A key as its JSON string decodes (a long one is shown by its raw start), cut to `MAX_KEY_CHARS`. */
function keyText(text: string, start: number, end: number): string {
  let key = text.slice(start + 1, Math.min(end - 1, start + 1 + MAX_KEY_CHARS * 8));
  if (end - start <= MAX_KEY_CHARS * 8) {
    try {
      key = JSON.parse(text.slice(start, end)) as string;
    } catch {
      // Not a valid JSON string: the raw characters name it well enough; JSON.parse refuses the line later.
    }
  }
  return key.length > MAX_KEY_CHARS ? `${key.slice(0, MAX_KEY_CHARS)}…` : key;
}
