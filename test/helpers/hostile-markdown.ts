/**
 * The issue-11 reply, grown: three lines of 8,000 nested `- ` list markers (48 KB) and one candidate block.
 * micromark's time grows about as the cube of the markers per line (2,700 of them took 2.2 s on a fast machine,
 * tens of seconds on a slow one; 8,000 take 27 s on the fast one) and checks no deadline inside a line, so
 * only a terminated worker stops it, whatever the machine, before any test's deadline (5 s at most); the scanner
 * (the default parser) reads it in about a millisecond. Tests of the deadline use micromark.
 */
export function hostileNestedLists(block = '```ts file=a.ts\nx\n```\n'): string {
  return `${`${'- '.repeat(8_000)}x\n`.repeat(3)}${block}`;
}

/**
 * 120 KB of `[a](`: link openers micromark never closes, rendered in about 11 s (superlinear), the issue-13
 * case of a report that must still come out; tests of the render limit use it.
 */
export function hostileLinkOpeners(bytes = 120_000): string {
  return '[a]('.repeat(Math.floor(bytes / 4));
}
