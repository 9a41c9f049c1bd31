import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FenceFeed } from '../../src/fence/fence-feed.js';
import { scanFences } from '../../src/fence/scan-fences.js';
import type { FenceBlock } from '../../src/fence/index.js';
import { generateDocument, randomCuts } from './corpus/generate-document.js';

const fixturesDir = path.resolve(import.meta.dirname, '../../fixtures/fence');
const fixtures = readdirSync(fixturesDir).map((name) => ({
  name,
  text: readFileSync(path.join(fixturesDir, name, 'input.md'), 'utf8'),
}));

/** Blocks the feed hands back when `text` is cut at `cuts` (ascending offsets), with the push that returned each. */
function feed(text: string, cuts: readonly number[]): { blocks: FenceBlock[]; pushOf: number[] } {
  const fenceFeed = new FenceFeed();
  const blocks: FenceBlock[] = [];
  const pushOf: number[] = [];
  let from = 0;
  [...cuts, text.length].forEach((to, push) => {
    for (const block of fenceFeed.push(text.slice(from, to))) {
      blocks.push(block);
      pushOf.push(push);
    }
    from = to;
  });
  for (const block of fenceFeed.end()) {
    blocks.push(block);
    pushOf.push(cuts.length + 1);
  }
  return { blocks, pushOf };
}

const everyChar = (text: string): number[] =>
  Array.from({ length: Math.max(text.length - 1, 0) }, (_, i) => i + 1);

const tricky = [
  '```ts file=a.ts\r\nx\r\n```\r\n',
  '```ts file=a.ts\rx\r```\r',
  '> ```ts file=q.ts\n> a\nlazy\n```md file=b.md\n````\n```\n',
  '- ```ts file=l.ts\n  x\n  ```\n- ```ts file=m.ts\n  y\n',
  '\uFEFF```ts file=bom.ts\n😀 é\n```',
  'para\n\uFEFF```ts file=notbom.ts\nz\n```\n',
  '```ts file=a.ts\n```\n\uFEFF```ts file=notbom.ts\nz\n```\n',
  '````md file=r.md\n```ts\ninner\n```\n````\n',
  '```ts file=u.ts\n\uD83D\uDE00\n```\n\n    ```ts file=indented.ts\n',
];

describe('FenceFeed', () => {
  it.each([
    ...fixtures.map(({ name, text }) => [name, text]),
    ...tricky.map((text, i) => [`tricky ${i}`, text]),
  ])(
    'hands back what scanFences finds for %s, at every single split point and in 1-char chunks',
    (_name, text) => {
      const expected = scanFences(text).blocks;
      expect(feed(text, []).blocks).toEqual(expected);
      expect(feed(text, everyChar(text)).blocks).toEqual(expected);
      // Every single split point: small fixtures all, large ones sampled.
      const step = Math.max(1, Math.floor(text.length / 400));
      for (let at = 1; at < text.length; at += step) expect(feed(text, [at]).blocks).toEqual(expected);
    },
  );

  it('hands back what scanFences finds for 300 generated container-heavy documents in random chunks', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const text = generateDocument(seed);
      const expected = scanFences(text).blocks;
      expect(feed(text, randomCuts(text.length, seed, 40)).blocks, `seed ${seed}`).toEqual(expected);
      expect(feed(text, randomCuts(text.length, seed + 1000, 3)).blocks, `seed ${seed}`).toEqual(expected);
    }
  });

  it('has handed back, after every push, exactly the blocks one read of the text so far finds', () => {
    const documents = [
      ...tricky,
      ...fixtures.map(({ text }) => text),
      // A fence inside a container ends with it, on a line that holds no fence characters.
      '> ```ts file=q.ts\n> a\nplain\nmore prose\n\n```ts file=b.ts\nb\n```\n',
      '- ```ts file=l.ts\n  x\n\nout\nprose\n',
      ...Array.from({ length: 300 }, (_, seed) => generateDocument(seed + 1)),
    ];
    for (const [n, text] of documents.entries()) {
      for (const cuts of [randomCuts(text.length, n + 1, 40), everyChar(text).slice(0, 200)]) {
        const fenceFeed = new FenceFeed();
        const handedBack: FenceBlock[] = [];
        let from = 0;
        for (const to of cuts) {
          handedBack.push(...fenceFeed.push(text.slice(from, to)));
          from = to;
          expect(handedBack, `document ${String(n)} at ${String(to)}`).toEqual(
            new FenceFeed().push(text.slice(0, to)),
          );
        }
      }
    }
  });

  it('hands back a closed block from the push that completes its closing fence line', () => {
    const text = 'intro\n```ts file=a.ts\nx\n```\nmore\n```ts file=b.ts\ny\n```';
    const { blocks, pushOf } = feed(text, [text.indexOf('```\nmore') + 3, text.indexOf('more') + 2]);
    expect(blocks.map((block) => block.declaredFile)).toEqual(['a.ts', 'b.ts']);
    // a.ts: its closing line ends with the `\n` of the second chunk; b.ts: its last line ends with the document.
    expect(pushOf).toEqual([1, 3]);
  });

  it('waits for the character after a trailing \\r before ending the line', () => {
    const fenceFeed = new FenceFeed();
    expect(fenceFeed.push('```ts file=a.ts\r\nx\r\n```\r')).toEqual([]);
    expect(fenceFeed.push('\n').map((block) => block.content)).toEqual(['x\r\n']);
    expect(fenceFeed.end()).toEqual([]);
  });

  it('names the candidate block held open once its opening fence line is complete', () => {
    const fenceFeed = new FenceFeed();
    fenceFeed.push('```ts file=a');
    expect(fenceFeed.openBlock).toBeUndefined();
    fenceFeed.push('.ts\nx\n');
    expect(fenceFeed.openBlock).toEqual({ index: 0, lang: 'ts', declaredFile: 'a.ts' });
    fenceFeed.push('```\n```bash\nls\n');
    // A fence that is no candidate is not named.
    expect(fenceFeed.openBlock).toBeUndefined();
    fenceFeed.push('```\n```py file=b.py\n');
    expect(fenceFeed.openBlock).toEqual({ index: 1, lang: 'py', declaredFile: 'b.py' });
    expect(fenceFeed.end().map((block) => [block.index, block.closed])).toEqual([[1, false]]);
    expect(fenceFeed.openBlock).toBeUndefined();
  });

  it('refuses a push after end()', () => {
    const fenceFeed = new FenceFeed();
    fenceFeed.end();
    expect(() => fenceFeed.push('x')).toThrow(/already complete/);
  });
});
