import { preprocess } from 'micromark';
import { describe, expect, it } from 'vitest';
import { createBlockParser } from '../../src/fence/create-block-parser.js';

function documentTypes(markdown: string): string[] {
  const events = createBlockParser()
    .document()
    .write(preprocess()(markdown, undefined, true));
  return events.filter(([kind]) => kind === 'enter').map(([, token]) => token.type);
}

describe('createBlockParser', () => {
  it('switches off every inline construct', () => {
    expect(createBlockParser().constructs.disable.null).toEqual(
      expect.arrayContaining([
        'attention',
        'autolink',
        'characterEscape',
        'characterReference',
        'codeText',
        'hardBreakEscape',
        'htmlText',
        'labelEnd',
        'labelStartImage',
        'labelStartLink',
      ]),
    );
  });

  it('keeps every block construct', () => {
    const disabled = createBlockParser().constructs.disable.null;
    for (const name of [
      'blockQuote',
      'list',
      'definition',
      'codeFenced',
      'codeIndented',
      'htmlFlow',
      'headingAtx',
      'thematicBreak',
      'setextUnderline',
    ]) {
      expect(disabled).not.toContain(name);
    }
  });

  it('flattens block quotes and lists', () => {
    const types = documentTypes('> a\n\n- b\n1. c\n');
    expect(types).toContain('blockQuotePrefix');
    expect(types).toContain('listItemPrefix');
    expect(types.filter((type) => ['blockQuote', 'listOrdered', 'listUnordered'].includes(type))).toEqual([]);
  });

  it('keeps definitions, which decide whether a setext underline follows a paragraph', () => {
    // `-` under a definition is a one-line paragraph, so `2) x` continues it instead of starting a list.
    expect(documentTypes('[a]: /u\n-\n2) x\n')).not.toContain('listItemPrefix');
  });

  it('lets a list start after indented code', () => {
    expect(documentTypes('    code\n2. x\n')).toContain('listItemPrefix');
  });
});
