import { parse, preprocess } from 'micromark';
import type { ParseContext } from 'micromark-util-types';
import { describe, expect, it } from 'vitest';
import { flattenContainer } from '../../src/fence/flatten-container.js';

function flattened(): ParseContext {
  const parser = parse();
  const document = parser.constructs.document;
  for (const [code, constructs] of Object.entries(document)) {
    if (constructs === undefined) continue;
    document[code] = Array.isArray(constructs)
      ? constructs.map(flattenContainer)
      : flattenContainer(constructs);
  }
  return parser;
}

/** Document token types and, for every flow tokenizer, its events as (kind, type, start, end) offsets. */
function tokenize(parser: ParseContext, markdown: string): { document: string[]; flow: string[] } {
  const events = parser.document().write(preprocess()(markdown, undefined, true));
  const flows = new Set(
    events.flatMap(([, token]) => (token._tokenizer === undefined ? [] : [token._tokenizer])),
  );
  return {
    document: events.map(([kind, token]) => `${kind} ${token.type}`),
    flow: [...flows].flatMap((flow) =>
      flow.events.map(([kind, token]) => `${kind} ${token.type} ${token.start.offset}-${token.end.offset}`),
    ),
  };
}

const containerDocuments = [
  '> a\n> ```\n> x\n> ```\n',
  '> > a\n> b\nc\n\n> d\n',
  '- a\n- ```\n  x\n\n  ```\n- c\n',
  '1. a\n\n   ```\n   x\n   ```\n2) b\n',
  '- a\n  - b\n    > ```\n    > x\n\n- c\n',
  '> - a\n>   ```\n> x\n',
  '* a\n\n  b\n* * *\n',
  '- \n  ```\n  x\n',
];

describe('flattenContainer', () => {
  it.each(containerDocuments)('leaves every flow event of %j unchanged', (markdown) => {
    expect(tokenize(flattened(), markdown).flow).toEqual(tokenize(parse(), markdown).flow);
  });

  it.each(containerDocuments)('opens no token for a whole container in %j', (markdown) => {
    const types = tokenize(flattened(), markdown).document;
    expect(types.filter((type) => /blockQuote$|listOrdered|listUnordered/.test(type))).toEqual([]);
    expect(
      tokenize(parse(), markdown).document.some((type) => /blockQuote$|list(Un)?[oO]rdered/.test(type)),
    ).toBe(true);
  });

  it('keeps the container prefixes, which the document still needs', () => {
    expect(tokenize(flattened(), '> a\n').document).toContain('enter blockQuotePrefix');
  });

  // Without flattening this takes tens of seconds (every attempt copies a stack of 20k open tokens); the time
  // is measured in `npm run bench` (t(2n)/t(n), test/bench/hostile-inputs.ts), the tokens here.
  it('parses 5 lines nested in 20k block quotes into one paragraph and no container token', () => {
    const { document, flow } = tokenize(flattened(), `${'>'.repeat(20_000)} a\n`.repeat(5));
    expect(document.filter((type) => /blockQuote$|listOrdered|listUnordered/.test(type))).toEqual([]);
    expect(flow.filter((type) => type.startsWith('enter paragraph ')).length).toBe(1);
  });
});
