/**
 * Documents shaped to cost the ingest as much as their size allows (issue 23, "one document takes the process
 * down"): each is one valid block followed by as many candidates of one shape as fit in `bytes`. Shared by the
 * tests that ingest them under a heap cap and by the memory bench (test/bench/document-memory.ts).
 */

/** One shape of hostile document: the unit repeated after the one valid block, and what each unit is. */
export interface HostileDocumentShape {
  readonly name: string;
  /** What one unit holds, for tables. */
  readonly what: string;
  /** The text of the unit with number `i` (candidates per unit: `candidatesPerUnit`). */
  readonly unit: (i: number) => string;
  readonly candidatesPerUnit: number;
}

/** The valid block every hostile document starts with: the one file it should write. */
export const HOSTILE_VALID_BLOCK = '```ts file=src/kept.ts\nexport const kept = 1;\n```\n\n';

/** The shapes of the bench and the tests, from the near-miss openers to the densest candidates. */
export const HOSTILE_SHAPES: readonly HostileDocumentShape[] = [
  {
    name: 'near-miss openers',
    what: '```ts path=x and ```ts file="a" blocks, alternating (unsupported_key, quoted_path)',
    unit: () => '```ts path=x\n```\n```ts file="a"\n```\n',
    candidatesPerUnit: 2,
  },
  {
    name: 'tiny valid blocks',
    what: '```ts file=f<i>.ts blocks of one line, each path new (written up to max_blocks, then too_many_blocks)',
    unit: (i) => `\`\`\`ts file=f${String(i)}.ts\nx\n\`\`\`\n`,
    candidatesPerUnit: 1,
  },
  {
    name: 'unterminated openers',
    what: 'list items of one ```ts file=a opener each, closed by the next item (unterminated)',
    unit: () => '- ```ts file=a\n',
    candidatesPerUnit: 1,
  },
  {
    name: 'deep in containers',
    what: 'a near-miss block inside 8 block quotes in a list item, one per item',
    unit: () => '- > > > > > > > > ```ts path=x\n  > > > > > > > > y\n  > > > > > > > > ```\n',
    candidatesPerUnit: 1,
  },
  {
    name: 'near-miss, two-byte text',
    what: 'the near-miss openers with a € in each, so the whole document is a two-byte (UTF-16) string in V8',
    unit: () => '```ts path=€\n```\n```ts file="€"\n```\n',
    candidatesPerUnit: 2,
  },
  {
    name: 'densest candidates',
    what: '```= lines closed by ``` (missing_lang), 8 bytes a candidate',
    unit: () => '```=\n```\n',
    candidatesPerUnit: 1,
  },
];

/** A document of about `bytes` UTF-8 bytes (never more): the valid block, then units of `shape` while they fit. */
export function hostileDocument(shape: HostileDocumentShape, bytes: number): string {
  const parts = [HOSTILE_VALID_BLOCK];
  let size = Buffer.byteLength(HOSTILE_VALID_BLOCK);
  for (let i = 0; ; i += 1) {
    const unit = shape.unit(i);
    const unitBytes = Buffer.byteLength(unit);
    if (size + unitBytes > bytes) break;
    parts.push(unit);
    size += unitBytes;
  }
  return parts.join('');
}

/** The number of candidates in `hostileDocument(shape, bytes)`, the valid block included. */
export function hostileCandidates(shape: HostileDocumentShape, document: string): number {
  let units = 0;
  let offset = HOSTILE_VALID_BLOCK.length;
  for (let i = 0; offset < document.length; i += 1) {
    offset += shape.unit(i).length;
    units += 1;
  }
  return 1 + units * shape.candidatesPerUnit;
}
