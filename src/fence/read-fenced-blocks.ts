import { decodeString } from 'micromark-util-decode-string';
import { types } from 'micromark-util-symbol';
import { micromarkModule } from './micromark-module.js';
import type { Chunk, Event, ParseContext, Point, TokenizeContext } from 'micromark-util-types';
import { createBlockParser } from './create-block-parser.js';

/** A fenced code block exactly as CommonMark found it, before any judgement of its info string. */
export interface RawFence {
  readonly fenceChar: '`' | '~';
  readonly fenceLength: number;
  /** The info string as it stands in the source line, trimmed of spaces and tabs. */
  readonly rawInfo: string;
  /** The info string as CommonMark gives it: `rawInfo` with escapes and character references decoded. */
  readonly info: string;
  readonly content: string;
  readonly closed: boolean;
  /** True when the block was still open at the very end of the document (unclosed, not ended by a container). */
  readonly reachesEnd: boolean;
  readonly startLine: number;
  readonly endLine: number;
}

/** Made on the first micromark parse, so that the default scanner never loads micromark (D76). */
let sharedParser: ParseContext | undefined;

/** Chunks written to micromark at a time, so a deadline can be checked between writes. */
const CHUNKS_PER_WRITE = 512;

/** Thrown out of a scan whose deadline passed; caught at the scan's boundary and reported as `timedOut`. */
export class ParseDeadlineExceeded extends Error {
  override readonly name = 'ParseDeadlineExceeded';
}

/** Fields collected while walking one `codeFenced` token's events. */
interface FenceDraft {
  readonly start: Point;
  fenceChar: '`' | '~';
  fenceLength: number;
  infoStart: Point | undefined;
  infoEnd: Point | undefined;
  infoContext: TokenizeContext | undefined;
  /** Number of `codeFencedFence` tokens entered: 1 after the opening fence, 2 once a closing fence started. */
  fences: number;
  /** Whether the line ending that ends the opening fence line (never content) was passed. */
  pastOpeningLine: boolean;
  content: string;
  lastInnerType: string;
  lastInnerLine: number;
}

/**
 * Reads every fenced code block of a markdown document, in document order, with micromark's block parser.
 * Throws {@link ParseDeadlineExceeded} once `performance.now()` passes `deadline`.
 */
export function readFencedBlocks(markdown: string, deadline = Number.POSITIVE_INFINITY): RawFence[] {
  // The parser is shared, so per-document state is reset; `lazy` marks lazy continuation lines by number.
  const blockParser = (sharedParser ??= createBlockParser());
  blockParser.lazy = {};
  blockParser.defined = [];
  const document = blockParser.document();
  const events = writeInSlices(document, micromarkModule().preprocess()(markdown, undefined, true), deadline);
  // micromark offsets count UTF-16 units from after a leading BOM, which preprocess drops.
  const documentEnd = markdown.charCodeAt(0) === 0xfeff ? markdown.length - 1 : markdown.length;
  const found: RawFence[] = [];
  const flows: TokenizeContext[] = [];
  const innermostPrefixIsList = new Map<number, boolean>();
  for (const [kind, token] of events) {
    if (kind !== 'enter') continue;
    if (token.type === types.chunkFlow) {
      // Each run of flow between container changes has one flow tokenizer, shared by its chunks.
      const flow = token._tokenizer;
      if (flow !== undefined && flow !== flows[flows.length - 1]) flows.push(flow);
    } else if (token.type === types.listItemIndent) {
      innermostPrefixIsList.set(token.start.line, true);
    } else if (token.type === types.blockQuotePrefix) {
      innermostPrefixIsList.set(token.start.line, false);
    }
  }
  for (const flow of flows) readFlow(flow.events, documentEnd, innermostPrefixIsList, found);
  return found;
}

/**
 * Collects the fenced code blocks of one flow tokenizer's (already resolved) events. `innermostPrefixIsList` tells,
 * per line, whether the innermost container prefix on it belongs to a list item.
 */
function readFlow(
  events: readonly Event[],
  documentEnd: number,
  innermostPrefixIsList: ReadonlyMap<number, boolean>,
  found: RawFence[],
): void {
  let draft: FenceDraft | undefined;
  let awaitingLineEnding: RawFence | undefined;
  for (const [kind, token, context] of events) {
    if (draft === undefined) {
      if (kind !== 'enter') continue;
      if (awaitingLineEnding !== undefined) {
        // CommonMark 4.5: a block ended by its container keeps its last line's ending, which micromark emits
        // after the block.
        if (token.type === types.lineEnding) {
          // The block's last line is the one this line ending ends; on the opening line it is not content.
          const endLine = token.start.line;
          const content =
            endLine > awaitingLineEnding.startLine
              ? awaitingLineEnding.content + context.sliceSerialize(token)
              : awaitingLineEnding.content;
          const reachesEnd = token.end.offset >= documentEnd;
          found[found.length - 1] = { ...awaitingLineEnding, content, reachesEnd, endLine };
        }
        awaitingLineEnding = undefined;
      }
      if (token.type === types.codeFenced) draft = startDraft(token.start);
      continue;
    }
    if (kind === 'exit') {
      if (token.type === types.codeFenced) {
        const fence = finish(draft, documentEnd, token.end);
        found.push(fence);
        if (!fence.closed) awaitingLineEnding = fence;
        draft = undefined;
      } else if (draft.fences === 1) {
        draft.lastInnerType = token.type;
        draft.lastInnerLine = token.start.line;
      }
      continue;
    }
    const type = token.type;
    if (type === types.codeFencedFence) {
      draft.fences += 1;
    } else if (type === types.codeFencedFenceSequence) {
      if (draft.fences === 1) {
        draft.fenceChar = context.sliceSerialize(token).startsWith('~') ? '~' : '`';
        draft.fenceLength = token.end.offset - token.start.offset;
      }
    } else if (type === types.codeFencedFenceInfo) {
      draft.infoStart = token.start;
      draft.infoEnd = token.end;
      draft.infoContext = context;
    } else if (type === types.codeFencedFenceMeta) {
      draft.infoEnd = token.end;
    } else if (type === types.lineEnding && draft.fences === 1) {
      // CommonMark 4.5: content starts on the line after the opening fence.
      if (draft.pastOpeningLine) draft.content += context.sliceSerialize(token);
      else draft.pastOpeningLine = true;
    } else if (type === types.codeFlowValue) {
      const value = context.sliceSerialize(token);
      // A list item takes all of a blank line's indentation (cmark, commonmark.js: CommonMark 5.2 blank lines);
      // micromark 4.0 stops at the item's width and leaves the rest as code.
      if (innermostPrefixIsList.get(token.start.line) !== true || !isSpacesAndTabs(value))
        draft.content += value;
    }
  }
}

function startDraft(start: Point): FenceDraft {
  return {
    start,
    fenceChar: '`',
    fenceLength: 0,
    infoStart: undefined,
    infoEnd: undefined,
    infoContext: undefined,
    fences: 0,
    pastOpeningLine: false,
    content: '',
    lastInnerType: '',
    lastInnerLine: start.line,
  };
}

function finish(draft: FenceDraft, documentEnd: number, end: Point): RawFence {
  const closed = draft.fences > 1;
  const rawInfo =
    draft.infoStart === undefined || draft.infoEnd === undefined || draft.infoContext === undefined
      ? ''
      : trimSpacesAndTabs(draft.infoContext.sliceSerialize({ start: draft.infoStart, end: draft.infoEnd }));
  return {
    fenceChar: draft.fenceChar,
    fenceLength: draft.fenceLength,
    rawInfo,
    info: rawInfo === '' ? '' : decodeString(rawInfo),
    content: draft.content,
    closed,
    reachesEnd: !closed && end.offset >= documentEnd,
    startLine: draft.start.line,
    // A block that ends with a line ending ends on that line ending's line, not on the next one.
    endLine: !closed && draft.lastInnerType === types.lineEnding ? draft.lastInnerLine : end.line,
  };
}

/** CommonMark 4.5: the info string is trimmed of leading and trailing spaces or tabs (not other whitespace). */
function trimSpacesAndTabs(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isSpaceOrTab(value.charCodeAt(start))) start++;
  while (end > start && isSpaceOrTab(value.charCodeAt(end - 1))) end--;
  return value.slice(start, end);
}

function isSpacesAndTabs(value: string): boolean {
  for (let index = 0; index < value.length; index++) if (!isSpaceOrTab(value.charCodeAt(index))) return false;
  return true;
}

function isSpaceOrTab(code: number): boolean {
  return code === 32 || code === 9;
}

/**
 * Feeds the chunks to micromark a slice at a time, as its streaming interface allows (the result is the same
 * as one write), checking the deadline between slices. Returns the events of the final write (with EOF).
 */
function writeInSlices(
  document: ReturnType<ParseContext['document']>,
  chunks: Chunk[],
  deadline: number,
): Event[] {
  let events: Event[] = [];
  for (let start = 0; start < chunks.length; start += CHUNKS_PER_WRITE) {
    events = document.write(chunks.slice(start, start + CHUNKS_PER_WRITE));
    if (performance.now() > deadline) throw new ParseDeadlineExceeded();
  }
  return events;
}
