/**
 * The issue-11 reply: three lines of 2,700 nested `- ` list markers (16 KB) and one candidate block. micromark
 * parses it in tens of seconds and checks no deadline inside a line, so only a terminated worker stops it;
 * the scanner (the default parser) reads it in about a millisecond. Tests of the deadline use micromark.
 */
export function hostileNestedLists(block = '```ts file=a.ts\nx\n```\n'): string {
  return `${`${'- '.repeat(2_700)}x\n`.repeat(3)}${block}`;
}

/**
 * 120 KB of `[a](`: link openers micromark never closes, rendered in about 11 s (superlinear), the issue-13
 * case of a report that must still come out; tests of the render limit use it.
 */
export function hostileLinkOpeners(bytes = 120_000): string {
  return '[a]('.repeat(Math.floor(bytes / 4));
}
