/**
 * Compares the fenced blocks of one document, block by block, between the first parser of a list and each of
 * the others, and shrinks a document on which they disagree to a minimal one.
 */
import type { RawFence } from '../../../src/fence/read-fenced-blocks.js';
import type { DifferentialParser, FullParser } from './differential-parsers.js';
import { type InfoAndContent, withNewlineEndings } from './reference-fences.js';

/** The first block on which a parser differs from the baseline (a missing block is `undefined`). */
export interface Disagreement {
  readonly baseline: string;
  readonly parser: string;
  /** The document as both were given it (for an info-and-content parser, as `asInfoAndContentInput` makes it). */
  readonly markdown: string;
  readonly index: number;
  readonly expected: unknown;
  readonly actual: unknown;
}

const FIELDS = [
  'fenceChar',
  'fenceLength',
  'rawInfo',
  'info',
  'content',
  'closed',
  'reachesEnd',
  'startLine',
  'endLine',
] as const satisfies readonly (keyof RawFence)[];

function sameFence(a: RawFence, b: RawFence): boolean {
  return FIELDS.every((field) => a[field] === b[field]);
}

/** The document's line ending style: '\n', '\r\n' or '\r', or undefined when it has none or mixes them. */
function lineEndingStyle(markdown: string): string | undefined {
  let style: string | undefined;
  for (let i = 0; i < markdown.length; i++) {
    const code = markdown.charCodeAt(i);
    if (code !== 10 && code !== 13) continue;
    const ending = code === 13 && markdown.charCodeAt(i + 1) === 10 ? '\r\n' : code === 13 ? '\r' : '\n';
    if (ending.length === 2) i++;
    if (style !== undefined && style !== ending) return undefined;
    style = ending;
  }
  return style ?? '\n';
}

/**
 * The document an info-and-content parser is compared on. commonmark.js gives every line of a block a \n, so
 * it cannot tell a last line without an ending from one with it: the document gets a final line ending (as
 * in the oracle test). Content is compared with endings as \n, which is ambiguous when styles mix (a CR
 * ending then an LF ending reads as one CRLF): such a document is compared with every ending as \n.
 */
export function asInfoAndContentInput(markdown: string): string {
  const style = lineEndingStyle(markdown);
  const uniform = style === undefined ? withNewlineEndings(markdown) : markdown;
  const last = uniform.charCodeAt(uniform.length - 1);
  return last === 10 || last === 13 ? uniform : `${uniform}${style ?? '\n'}`;
}

/** Runs one parser, turning a throw into a value so that a crash is a disagreement like any other. */
function attempt<T>(read: () => readonly T[]): readonly T[] | { readonly threw: string } {
  try {
    return read();
  } catch (error) {
    return { threw: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

function firstDifference<T>(
  expected: readonly T[],
  actual: readonly T[],
  same: (a: T, b: T) => boolean,
): number | undefined {
  const length = Math.max(expected.length, actual.length);
  for (let index = 0; index < length; index++) {
    const a = expected[index];
    const b = actual[index];
    if (a === undefined || b === undefined || !same(a, b)) return index;
  }
  return undefined;
}

/** For each parser that disagrees with the first one (the baseline) on `markdown`, its first differing block. */
export function findDisagreements(
  markdown: string,
  parsers: readonly [FullParser, ...DifferentialParser[]],
): Disagreement[] {
  const [baseline, ...others] = parsers;
  const found: Disagreement[] = [];
  const expectedFull = attempt(() => baseline.full(markdown));
  let ended: { markdown: string; fences: ReturnType<typeof attempt<InfoAndContent>> } | undefined;
  for (const parser of others) {
    let input = markdown;
    let expected: readonly unknown[] | { readonly threw: string };
    let actual: readonly unknown[] | { readonly threw: string };
    let index: number | undefined;
    if ('full' in parser) {
      expected = expectedFull;
      actual = attempt(() => parser.full(markdown));
      if ('threw' in expected || 'threw' in actual) index = 0;
      else index = firstDifference(expected as readonly RawFence[], actual as readonly RawFence[], sameFence);
    } else {
      input = asInfoAndContentInput(markdown);
      if (ended === undefined) {
        const fences = input === markdown ? expectedFull : attempt(() => baseline.full(input));
        ended = {
          markdown: input,
          fences:
            'threw' in fences
              ? fences
              : fences.map((fence): InfoAndContent => [fence.info, withNewlineEndings(fence.content)]),
        };
      }
      expected = ended.fences;
      actual = attempt(() => parser.infoAndContent(input));
      if ('threw' in expected || 'threw' in actual) index = 0;
      else
        index = firstDifference(
          expected as readonly InfoAndContent[],
          actual as readonly InfoAndContent[],
          (a, b) => a[0] === b[0] && a[1] === b[1],
        );
    }
    if (index !== undefined) {
      found.push({
        baseline: baseline.name,
        parser: parser.name,
        markdown: input,
        index,
        expected: 'threw' in expected ? expected : expected[index],
        actual: 'threw' in actual ? actual : actual[index],
      });
    }
  }
  return found;
}

/** Splits text into lines that keep their line endings, so that joining them gives the text back. */
function linesOf(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10 || (code === 13 && text.charCodeAt(i + 1) !== 10)) {
      lines.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** Removes chunks of `units` (halving the chunk size down to 1) as long as `fails` holds of what is left. */
function shrink(units: string[], fails: (text: string) => boolean): string[] {
  let current = units;
  for (let size = Math.max(1, Math.floor(current.length / 2)); size >= 1; size = Math.floor(size / 2)) {
    for (let start = 0; start < current.length;) {
      const candidate = [...current.slice(0, start), ...current.slice(start + size)];
      if (candidate.length > 0 && fails(candidate.join(''))) current = candidate;
      else start += size;
    }
  }
  return current;
}

/**
 * A minimal document on which `parser` still disagrees with the baseline: whole lines are removed first, then
 * single characters (for documents that are small by then).
 */
export function minimizeDocument(
  markdown: string,
  parsers: readonly [FullParser, ...DifferentialParser[]],
  parser: string,
): string {
  const fails = (text: string): boolean =>
    findDisagreements(text, parsers).some((disagreement) => disagreement.parser === parser);
  if (!fails(markdown)) return markdown;
  const lines = shrink(linesOf(markdown), fails).join('');
  return lines.length > 400 ? lines : shrink(Array.from(lines), fails).join('');
}
