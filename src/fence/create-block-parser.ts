import type { Construct, ParseContext } from 'micromark-util-types';
import { flattenContainer } from './flatten-container.js';
import { interruptOnlyParagraphs } from './interrupt-only-paragraphs.js';
import { micromarkModule } from './micromark-module.js';

/**
 * Creates a micromark parser that builds block structure only: inline constructs off, containers flattened and
 * held to CommonMark's paragraph interruption rule.
 */
export function createBlockParser(): ParseContext {
  const parser = micromarkModule().parse({
    extensions: [
      {
        disable: {
          // Inline constructs never change block structure (CommonMark: blocks are parsed before inlines),
          // and text and string chunks are never expanded here. Definitions stay: a paragraph of definitions
          // cannot take a setext underline (`[a]: /u` then `-`), which decides what the next line is.
          null: [
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
          ],
        },
      },
    ],
  });
  const document = parser.constructs.document;
  const adapt = (construct: Construct): Construct => interruptOnlyParagraphs(flattenContainer(construct));
  for (const [code, constructs] of Object.entries(document)) {
    if (constructs === undefined) continue;
    document[code] = Array.isArray(constructs) ? constructs.map(adapt) : adapt(constructs);
  }
  return parser;
}
