import { describe, expect, it } from 'vitest';
import type { SafeHtml } from '../../../src/report/html/escape-html.js';
import { escapeHtml, joinHtml, markup } from '../../../src/report/html/escape-html.js';

describe('escapeHtml', () => {
  it.each([
    ['<script>', '&lt;script&gt;'],
    ['a & b', 'a &amp; b'],
    ['"quoted"', '&quot;quoted&quot;'],
    ["it's", 'it&#39;s'],
    ['&amp;', '&amp;amp;'],
    ['plain text', 'plain text'],
  ])('escapes %j', (text, expected) => {
    expect(escapeHtml(text)).toBe(expected);
  });
});

describe('markup', () => {
  it('escapes interpolated text and numbers but keeps SafeHtml', () => {
    const inner = markup`<b>${'<i>'}</b>`;
    expect(markup`<p title="${'"x"'}">${inner} ${3}</p>`.value).toBe(
      '<p title="&quot;x&quot;"><b>&lt;i&gt;</b> 3</p>',
    );
  });

  it('joins lists, escaping each string in them, and drops null, undefined and false', () => {
    expect(markup`${['<a>', markup`<br>`, null, undefined, false, ['<c>']]}`.value).toBe(
      '&lt;a&gt;<br>&lt;c&gt;',
    );
  });

  it('does not take a plain object posing as SafeHtml', () => {
    const fake = { value: '<script>' } as unknown as SafeHtml;
    expect(() => markup`${fake}`).toThrow();
  });

  it('joins fragments with a separator without escaping them again', () => {
    expect(joinHtml([markup`<i>${'&'}</i>`, markup`<b></b>`], '<br>').value).toBe('<i>&amp;</i><br><b></b>');
  });
});
