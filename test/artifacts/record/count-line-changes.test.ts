import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { diffLines } from 'diff';
import { countLineChanges } from '../../../src/artifacts/record/count-line-changes.js';
import { runProgram } from '../../helpers/run-cli.js';

const cases: readonly (readonly [
  name: string,
  previous: string | null,
  next: string,
  added: number,
  removed: number,
])[] = [
  ['a first version counts every line as added', null, 'a\nb\nc\n', 3, 0],
  ['a first version without a final newline still counts its last line', null, 'a\nb', 2, 0],
  ['an empty first version adds nothing', null, '', 0, 0],
  ['a first version of one newline is one line', null, '\n', 1, 0],
  ['identical texts change nothing', 'a\nb\n', 'a\nb\n', 0, 0],
  ['two empty texts change nothing', '', '', 0, 0],
  ['an appended line is one added', 'a\n', 'a\nb\n', 1, 0],
  ['a deleted line is one removed', 'a\nb\nc\n', 'a\nc\n', 0, 1],
  ['an edited line is one removed and one added', 'a\nb\nc\n', 'a\nB\nc\n', 1, 1],
  ['emptying a file removes every line', 'a\nb\n', '', 0, 2],
  ['filling an empty file adds every line', '', 'a\nb\n', 2, 0],
  ['adding a final newline changes the last line', 'a\nb', 'a\nb\n', 1, 1],
  ['removing a final newline changes the last line', 'a\nb\n', 'a\nb', 1, 1],
  ['CRLF lines count like LF lines', null, 'a\r\nb\r\n', 2, 0],
  ['identical CRLF texts change nothing', 'a\r\nb\r\n', 'a\r\nb\r\n', 0, 0],
  ['switching LF to CRLF changes every line', 'a\nb\n', 'a\r\nb\r\n', 2, 2],
  ['an edited CRLF line is one removed and one added', 'a\r\nb\r\n', 'a\r\nc\r\n', 1, 1],
];

/** `count` lines, each unique to `tag`, so no line of one version matches a line of another. */
function uniqueLines(tag: string, count: number): string {
  return Array.from({ length: count }, (_, i) => `${tag} line ${String(i)}\n`).join('');
}

describe('countLineChanges', () => {
  it.each(cases)('%s', (_name, previous, next, linesAdded, linesRemoved) => {
    expect(countLineChanges(previous, next)).toEqual({ linesAdded, linesRemoved, method: 'diff' });
  });

  it.each(cases)('the fallback counts the same: %s', (_name, previous, next, linesAdded, linesRemoved) => {
    // maxEditLength 0 makes every diff with an edit left after trimming give up, so the fallback counts.
    const counted = countLineChanges(previous, next, { maxEditLength: 0 });
    expect({ linesAdded: counted.linesAdded, linesRemoved: counted.linesRemoved }).toEqual({
      linesAdded,
      linesRemoved,
    });
  });

  it('counts a rewrite of 20,000 lines with all-new lines exactly, by the linear fallback', () => {
    const counted = countLineChanges(uniqueLines('old', 20_000), uniqueLines('new', 20_000));
    expect(counted).toEqual({ linesAdded: 20_000, linesRemoved: 20_000, method: 'multiset' });
  });

  it('counts a first version of 20,000 lines without a diff search', () => {
    expect(countLineChanges(null, uniqueLines('new', 20_000))).toEqual({
      linesAdded: 20_000,
      linesRemoved: 0,
      method: 'diff',
    });
  });

  it('keeps the minimal diff for a small edit inside a large text', () => {
    const previous = uniqueLines('same', 10_000) + 'old tail\n';
    const next = 'new head\n' + uniqueLines('same', 10_000) + 'new tail\n';
    expect(countLineChanges(previous, next)).toEqual({ linesAdded: 2, linesRemoved: 1, method: 'diff' });
  });

  it('uses the fallback exactly when the edit exceeds the bound', () => {
    const previous = 'keep\n' + uniqueLines('old', 6) + 'keep too\n';
    const next = 'keep\n' + uniqueLines('new', 6) + 'keep too\n';
    expect(countLineChanges(previous, next, { maxEditLength: 12 })).toEqual({
      linesAdded: 6,
      linesRemoved: 6,
      method: 'diff',
    });
    expect(countLineChanges(previous, next, { maxEditLength: 11 })).toEqual({
      linesAdded: 6,
      linesRemoved: 6,
      method: 'multiset',
    });
  });

  it('counts moved lines as unchanged in the fallback, where a diff counts them removed and added', () => {
    // The documented approximation: the multiset count is a lower bound when common lines change order.
    const previous = 'x\na\nb\nc\ny\n';
    const next = 'z\nc\nb\na\nw\n';
    expect(countLineChanges(previous, next)).toEqual({ linesAdded: 4, linesRemoved: 4, method: 'diff' });
    expect(countLineChanges(previous, next, { maxEditLength: 0 })).toEqual({
      linesAdded: 2,
      linesRemoved: 2,
      method: 'multiset',
    });
  });
});

describe('countLineChanges of a 16 MiB document of short lines (issue 23)', () => {
  // The built module in a child whose V8 heap is capped at 48 MiB: a string per line (8 million of them, and an
  // array holding them) does not fit, what the counts need does.
  const built = fileURLToPath(
    new URL('../../../dist/artifacts/record/count-line-changes.js', import.meta.url),
  );
  const count = (previous: string, next: string) =>
    runProgram(process.execPath, [
      '--max-old-space-size=48',
      '--input-type=module',
      '-e',
      `import { countLineChanges } from ${JSON.stringify(built)};
       const lines = (line, n) => line.repeat(n);
       console.log(JSON.stringify(countLineChanges(${previous}, ${next})));`,
    ]);

  it.each([
    ['a first version', 'null', "lines('a\\n', 8 * 1024 * 1024)", [8 * 1024 * 1024, 0]],
    [
      'a version that changes its first line',
      "'x\\n' + lines('a\\n', 4 * 1024 * 1024)",
      "'y\\n' + lines('a\\n', 4 * 1024 * 1024)",
      [1, 1],
    ],
    [
      'a version that changes every line',
      "lines('a\\n', 4 * 1024 * 1024)",
      "lines('b\\n', 4 * 1024 * 1024)",
      [4 * 1024 * 1024, 4 * 1024 * 1024],
    ],
  ])(
    'counts %s without a string per line',
    async (_name, previous, next, [added, removed]) => {
      const { code, stdout, stderr } = await count(previous, next);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ linesAdded: added, linesRemoved: removed });
    },
    60_000,
  );
});

describe('countLineChanges against jsdiff', () => {
  /** A small deterministic generator (mulberry32), so a failing case can be replayed. */
  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  // Few distinct lines, so texts share lines in many orders; CRLF and a last line without a newline included.
  const LINES = ['a\n', 'b\n', 'c\n', 'a\r\n', 'd\n', '\n'];
  const textOf = (next: () => number, lines: number): string => {
    const parts = Array.from({ length: lines }, () => LINES[Math.floor(next() * LINES.length)] ?? '');
    return next() < 0.2 ? `${parts.join('')}z` : parts.join('');
  };

  it('gives a minimal diff the same counts as diffLines, and falls back exactly where diffLines gives up', () => {
    const next = random(14);
    for (let round = 0; round < 3000; round++) {
      const previous = textOf(next, Math.floor(next() * 30));
      const text = textOf(next, Math.floor(next() * 30));
      const bound = [1, 3, 8, 500][round % 4] ?? 500;
      const counted = countLineChanges(previous, text, { maxEditLength: bound });
      const reference = jsdiffCounts(previous, text, bound);
      const where = `round ${String(round)}: ${JSON.stringify(previous)} -> ${JSON.stringify(text)}, bound ${String(bound)}`;
      if (reference === undefined) expect(counted.method, where).toBe('multiset');
      else expect({ ...counted, where }).toEqual({ ...reference, method: 'diff', where });
    }
  });
});

/** What jsdiff's minimal line diff counts, after the same prefix and suffix trim; undefined past the bound. */
function jsdiffCounts(
  previous: string,
  text: string,
  bound: number,
): { readonly linesAdded: number; readonly linesRemoved: number } | undefined {
  const split = (value: string): string[] => value.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const a = split(previous);
  const b = split(text);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let aEnd = a.length;
  let bEnd = b.length;
  while (aEnd > start && bEnd > start && a[aEnd - 1] === b[bEnd - 1]) {
    aEnd--;
    bEnd--;
  }
  const oldMiddle = a.slice(start, aEnd);
  const newMiddle = b.slice(start, bEnd);
  if (oldMiddle.length === 0 || newMiddle.length === 0) {
    return { linesAdded: newMiddle.length, linesRemoved: oldMiddle.length };
  }
  const changes = diffLines(oldMiddle.join(''), newMiddle.join(''), { maxEditLength: bound });
  if (changes === undefined) return undefined;
  let linesAdded = 0;
  let linesRemoved = 0;
  for (const change of changes) {
    if (change.added) linesAdded += change.count;
    else if (change.removed) linesRemoved += change.count;
  }
  return { linesAdded, linesRemoved };
}
