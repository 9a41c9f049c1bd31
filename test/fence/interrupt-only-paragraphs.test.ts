import { parse, preprocess } from 'micromark';
import type { ParseContext } from 'micromark-util-types';
import { describe, expect, it } from 'vitest';
import { interruptOnlyParagraphs } from '../../src/fence/interrupt-only-paragraphs.js';

function withInterruptFix(): ParseContext {
  const parser = parse();
  const document = parser.constructs.document;
  for (const [code, constructs] of Object.entries(document)) {
    if (constructs === undefined) continue;
    document[code] = Array.isArray(constructs)
      ? constructs.map(interruptOnlyParagraphs)
      : interruptOnlyParagraphs(constructs);
  }
  return parser;
}

function listItems(parser: ParseContext, markdown: string): number {
  const events = parser.document().write(preprocess()(markdown, undefined, true));
  return events.filter(([kind, token]) => kind === 'enter' && token.type === 'listItemPrefix').length;
}

describe('interruptOnlyParagraphs', () => {
  it.each<[string, string, number]>([
    ['an ordered list from 2 after indented code', '    code\n2. x\n', 1],
    ['an ordered list from 2 after indented code and a blank line', '    code\n\n2. x\n', 1],
    ['an empty list item after indented code', '    code\n- \n', 1],
    ['a list nested in a list that interrupts a paragraph', 'para\n- 2. x\n', 2],
    ['a list nested in a block quote that interrupts a paragraph', 'para\n> 2. x\n', 1],
    ['an empty list item nested in a new list item', 'para\n- - \n', 2],
  ])('starts %s (CommonMark 5.2, as cmark and commonmark.js do)', (_name, markdown, items) => {
    expect(listItems(withInterruptFix(), markdown)).toBe(items);
    expect(listItems(parse(), markdown)).toBeLessThan(items);
  });

  it.each<[string, string, number]>([
    ['an ordered list from 2', 'para\n2. x\n', 0],
    ['an empty list item', 'para\n- \n', 0],
    ['an empty list item in a block quote', '> para\n> - \n', 0],
    ['an ordered list from 1, which may', 'para\n1. x\n', 1],
    ['a bullet item with content, which may', 'para\n- x\n', 1],
  ])('still lets a paragraph hold back %s', (_name, markdown, items) => {
    expect(listItems(withInterruptFix(), markdown)).toBe(items);
    expect(listItems(parse(), markdown)).toBe(items);
  });
});
