import { describe, expect, it } from 'vitest';
import { applyEditBlock, isEditBlock } from '../../src/ingest/edit-block.js';

describe('isEditBlock', () => {
  it.each([
    ['diff', 'src/a.ts', true],
    ['patch', 'src/a.ts', true],
    ['DIFF', 'README', true],
    ['diff', 'fix.patch', false],
    ['patch', 'x.diff', false],
    ['diff', 'changes/X.DIFF', false],
    ['ts', 'src/a.ts', false],
    ['diff', '', false],
  ])('lang %s, file=%s -> %s', (lang, file, expected) => {
    expect(isEditBlock(lang, file)).toBe(expected);
  });
});

describe('applyEditBlock', () => {
  it('creates a file from /dev/null', () => {
    const patch = '--- /dev/null\n+++ b/src/a.ts\n@@ -0,0 +1,2 @@\n+one\n+two\n';
    expect(applyEditBlock(patch, null, 'src/a.ts')).toEqual({ ok: true, text: 'one\ntwo\n' });
  });

  it('applies a patch without file headers to an existing file', () => {
    const patch = '@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n';
    expect(applyEditBlock(patch, 'a\nb\nc\n', 'x.txt')).toEqual({ ok: true, text: 'a\nB\nc\n' });
  });

  it.each([
    [
      'a file that does not exist',
      '@@ -1 +1 @@\n-a\n+b\n',
      null,
      /^x\.txt does not exist in workspace\/; .*--- \/dev\/null/,
    ],
    [
      'a /dev/null patch for a file that exists',
      '--- /dev/null\n+++ b/x.txt\n@@ -0,0 +1 @@\n+a\n',
      'a\n',
      /already exists/,
    ],
    ['a deletion', '--- a/x.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n', 'a\n', /cannot delete a file/],
    ['no hunk', 'just some words\n', 'a\n', /holds no hunk/],
    [
      'two files',
      '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n',
      'a\n',
      /patches 2 files/,
    ],
    ['a hunk whose counts lie', '@@ -1,3 +1,3 @@\n-a\n+b\n', 'a\n', /not a unified diff/],
    [
      'a changed context line',
      '@@ -1,2 +1,2 @@\n a\n-b\n+c\n',
      'a\nX\n',
      /^hunk 1 \(@@ -1,2 \+1,2 @@\) does not match x\.txt at line 1;/,
    ],
  ])('refuses %s', (_name, patch, current, message) => {
    const outcome = applyEditBlock(patch, current, 'x.txt');
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? '' : outcome.message).toMatch(message);
  });

  it('names the first hunk that fails, not the first hunk', () => {
    const current = Array.from({ length: 20 }, (_, line) => `line ${line + 1}`).join('\n') + '\n';
    const patch = [
      '@@ -2,3 +2,3 @@',
      ' line 2',
      '-line 3',
      '+LINE 3',
      ' line 4',
      '@@ -10,4 +10,5 @@',
      ' line 10',
      ' line 11',
      '+added',
      ' nope 12',
      ' line 13',
      '',
    ].join('\n');
    const outcome = applyEditBlock(patch, current, 'src/a.ts');
    expect(outcome).toEqual({
      ok: false,
      message:
        "hunk 2 (@@ -10,4 +10,5 @@) does not match src/a.ts at line 10; nothing was written. Make the patch against the file's current content",
    });
  });

  it('keeps CRLF line endings of a CRLF file patched with an LF patch', () => {
    const patch = '@@ -1,2 +1,2 @@\n a\n-b\n+c\n';
    expect(applyEditBlock(patch, 'a\r\nb\r\n', 'x.txt')).toEqual({ ok: true, text: 'a\r\nc\r\n' });
  });

  it('applies a CRLF patch to a CRLF file byte for byte', () => {
    const patch = '@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n';
    expect(applyEditBlock(patch, 'a\r\nb\r\n', 'x.txt')).toEqual({ ok: true, text: 'a\r\nc\r\n' });
  });
});
