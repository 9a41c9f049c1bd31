import { types } from 'micromark-util-symbol';
import type { Construct, TokenizeContext } from 'micromark-util-types';

/** Where the first container start of a line was tried, per document tokenizer. */
const firstStartOfLine = new WeakMap<TokenizeContext, { readonly line: number; readonly offset: number }>();

/**
 * Wraps a container construct so that it sees `interrupt` only when it really would interrupt a paragraph, as
 * CommonMark 5.2 says, undoing two micromark 4.0 slips that hide list items (and the fences inside them).
 */
export function interruptOnlyParagraphs(construct: Construct): Construct {
  const tokenize = construct.tokenize;
  return {
    ...construct,
    tokenize(effects, ok, nok) {
      if (this.interrupt === true && !interruptsParagraph(this)) this.interrupt = undefined;
      return tokenize.call(this, effects, ok, nok);
    },
  };
}

/** Whether a container starting here would start on a line that could otherwise continue a paragraph. */
function interruptsParagraph(document: TokenizeContext): boolean {
  const { line, offset } = document.now();
  const first = firstStartOfLine.get(document);
  if (first === undefined || first.line !== line) {
    firstStartOfLine.set(document, { line, offset });
    // micromark sets `interrupt` whenever a flow construct is open, but open indented code is no paragraph
    // (`    code` then `2. x` starts a list).
    return currentFlowConstruct(document)?.name !== 'codeIndented';
  }
  // micromark keeps `interrupt` for the rest of the line, but a container nested in a container opened on
  // this line starts that container's content, not paragraph continuation text (`para` then `- 2. x`).
  return offset <= first.offset;
}

/** The construct the document's current flow tokenizer is in, found through the last flow chunk. */
function currentFlowConstruct(document: TokenizeContext): Construct | undefined {
  const events = document.events;
  for (let index = events.length - 1; index >= 0; index--) {
    const token = events[index]?.[1];
    if (token?.type === types.chunkFlow) return token._tokenizer?.currentConstruct;
  }
  return undefined;
}
