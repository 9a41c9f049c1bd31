import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DIFFERENTIAL_PARSERS, type FullParser, micromarkParser } from './corpus/differential-parsers.js';
import { findDisagreements, minimizeDocument } from './corpus/find-disagreements.js';
import { generateDocument } from './corpus/generate-document.js';
import { KNOWN_DISAGREEMENTS } from './corpus/known-disagreements.js';
import { referenceFences } from './corpus/reference-fences.js';
import { atScale } from '../helpers/test-scale.js';

/** How many generated documents are compared: 2,000 in `npm test`, 20,000 in the scale run, 1,000,000 in the bench. */
const DOCUMENTS = Number(process.env.FENCE_DIFFERENTIAL_DOCUMENTS ?? atScale(2_000, 20_000));
const SEEDS_PER_TEST = 1_000;
/** Disagreements minimized per test: shrinking is slow, and one minimal document is usually enough. */
const MINIMIZED_PER_TEST = 3;

/** For each pinned seed, the parsers expected to differ from micromark on it. */
const pinnedParsers = new Map<number, readonly string[]>(
  KNOWN_DISAGREEMENTS.flatMap((known) => known.seeds.map((seed) => [seed, known.parsers] as const)),
);

/** Every disagreement on the documents of seeds first..last, minimal document included, except pinned ones. */
function unexpectedDisagreements(first: number, last: number): string[] {
  const unexpected: string[] = [];
  for (let seed = first; seed <= last; seed++) {
    const markdown = generateDocument(seed);
    const disagreements = findDisagreements(markdown, DIFFERENTIAL_PARSERS);
    const pinned = pinnedParsers.get(seed) ?? [];
    for (const parser of pinned) {
      if (!disagreements.some((disagreement) => disagreement.parser === parser))
        unexpected.push(
          `seed ${seed}: ${parser} now agrees with micromark; unpin it in known-disagreements.ts`,
        );
    }
    for (const disagreement of disagreements) {
      if (pinned.includes(disagreement.parser)) continue;
      const minimal =
        unexpected.length < MINIMIZED_PER_TEST
          ? minimizeDocument(markdown, DIFFERENTIAL_PARSERS, disagreement.parser)
          : '(not minimized)';
      unexpected.push(
        `seed ${seed}: ${disagreement.parser} differs from ${disagreement.baseline} at block ${disagreement.index}` +
          `\n  document: ${JSON.stringify(disagreement.markdown)}\n  minimal:  ${JSON.stringify(minimal)}` +
          `\n  ${disagreement.baseline}: ${JSON.stringify(disagreement.expected)}` +
          `\n  ${disagreement.parser}: ${JSON.stringify(disagreement.actual)}`,
      );
    }
  }
  return unexpected;
}

describe('the generated differential corpus', () => {
  const ranges = Array.from({ length: Math.ceil(DOCUMENTS / SEEDS_PER_TEST) }, (_, index) => {
    const first = index * SEEDS_PER_TEST + 1;
    return [first, Math.min(DOCUMENTS, first + SEEDS_PER_TEST - 1)] as const;
  });

  it.each(ranges)(
    'documents of seeds %i..%i: every parser agrees with micromark, block by block',
    (first, last) => {
      expect(unexpectedDisagreements(first, last)).toEqual([]);
    },
  );
});

describe('known disagreements of micromark with commonmark.js', () => {
  it.each(KNOWN_DISAGREEMENTS)(
    'still reproduce: $reproduction',
    ({ reproduction, referenceFences: expected }) => {
      expect(referenceFences(reproduction)).toEqual(expected);
      expect(micromarkParser.full(reproduction)).toEqual([]);
    },
  );
});

describe('fixed documents', () => {
  const require = createRequire(import.meta.url);
  const spec = require('commonmark-spec') as {
    readonly tests: readonly { markdown: string; number: number }[];
  };
  const examples = spec.tests.map((example) => ({
    ...example,
    markdown: example.markdown.replace(/→/g, '\t'),
  }));
  const fixtures = fileURLToPath(new URL('../../fixtures/fence/', import.meta.url));
  const fixtureInputs = readdirSync(fixtures, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({
      name: entry.name,
      markdown: readFileSync(join(fixtures, entry.name, 'input.md'), 'utf8'),
    }));

  it('compares all 652 CommonMark spec examples', () => {
    expect(examples.length).toBe(652);
  });

  it.each(examples)('spec example $number: every parser agrees with micromark', ({ markdown }) => {
    expect(findDisagreements(markdown, DIFFERENTIAL_PARSERS)).toEqual([]);
  });

  it.each(fixtureInputs)('fixtures/fence/$name: every parser agrees with micromark', ({ markdown }) => {
    expect(findDisagreements(markdown, DIFFERENTIAL_PARSERS)).toEqual([]);
  });
});

describe('the comparison', () => {
  /** micromark with one defect: an unclosed block's last line ending is lost. */
  const defective: FullParser = {
    name: 'defective',
    full: (markdown) =>
      micromarkParser
        .full(markdown)
        .map((fence) =>
          fence.closed ? fence : { ...fence, content: fence.content.replace(/\r?\n$|\r$/, '') },
        ),
  };

  it('finds a parser that differs in one field and names the first differing block', () => {
    const markdown = '```ts\nx\n```\n\n> ~~~\n> y\n\nafter\n';
    const [disagreement] = findDisagreements(markdown, [micromarkParser, defective]);
    expect(disagreement).toMatchObject({ parser: 'defective', baseline: 'micromark', index: 1 });
    expect(disagreement?.expected).toMatchObject({ content: 'y\n' });
    expect(disagreement?.actual).toMatchObject({ content: 'y' });
  });

  it('shrinks a disagreeing document to a minimal one that still disagrees', () => {
    const markdown = 'prose\n\n```ts\nx\n```\n\n- item\n\n> ~~~\n> y\n\nafter\n';
    const minimal = minimizeDocument(markdown, [micromarkParser, defective], 'defective');
    expect(minimal.length).toBeLessThan(8);
    expect(findDisagreements(minimal, [micromarkParser, defective])).toHaveLength(1);
  });

  it('reports a parser that throws as a disagreement instead of failing the run', () => {
    const throwing: FullParser = {
      name: 'throwing',
      full: () => {
        throw new RangeError('boom');
      },
    };
    expect(findDisagreements('```\nx\n```\n', [micromarkParser, throwing])).toMatchObject([
      { parser: 'throwing', actual: { threw: 'RangeError: boom' } },
    ]);
  });
});
