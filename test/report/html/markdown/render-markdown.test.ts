import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../../src/report/html/markdown/render-markdown.js';

const render = (markdown: string): string => renderMarkdown(markdown, 4).value;

describe('renderMarkdown', () => {
  it.each([
    ['a script element', '<script>window.pwned = 1</script>', '<script'],
    ['an inline script', 'text <script>window.pwned = 1</script> more', '<script'],
    ['an img with onerror', '<img src=x onerror="window.pwned = 1">', '<img'],
    ['an iframe', '<iframe src="https://example.com"></iframe>', '<iframe'],
    ['a svg with onload', '<svg onload="window.pwned = 1"></svg>', '<svg'],
    ['a style element', '<style>body{display:none}</style>', '<style'],
  ])('escapes raw HTML: %s', (_name, markdown, forbidden) => {
    const out = render(markdown);
    expect(out).not.toContain(forbidden);
    expect(out).toContain('&lt;');
  });

  it.each([
    ['an inline link', '[click](javascript:window.pwned=1)'],
    ['an autolink', '<javascript:window.pwned=1>'],
    ['a reference link', '[click][x]\n\n[x]: javascript:window.pwned=1'],
    ['a mixed-case scheme', '[click](JaVaScRiPt:window.pwned=1)'],
    ['a vbscript link', '[click](vbscript:msgbox)'],
    ['a data: link', '[click](data:text/html;base64,PHNjcmlwdD4=)'],
  ])('drops a dangerous URL: %s', (_name, markdown) => {
    expect(render(markdown)).not.toMatch(/href="(?:javascript|vbscript|data):/i);
  });

  it.each([
    ['an inline image', '![logo](https://example.com/logo.png)', 'https://example.com/logo.png'],
    ['a titled image', '![logo](https://example.com/a.png "Title")', 'https://example.com/a.png'],
    ['a reference image', '![logo][l]\n\n[l]: https://example.com/r.png', 'https://example.com/r.png'],
    [
      'an image in a link',
      '[![logo](https://example.com/i.png)](https://example.com)',
      'https://example.com/i.png',
    ],
    ['an image in an image', '![a ![b](https://x.test/b.png)](https://x.test/a.png)', 'https://x.test/a.png'],
  ])('renders an image as text naming its URL: %s', (_name, markdown, url) => {
    const out = render(markdown);
    expect(out).not.toContain('<img');
    expect(out).toContain('[image: ');
    expect(out).toContain(url);
  });

  it('moves headings under the page: h1 becomes h5 and deeper ones stop at h6', () => {
    const out = render('# One\n\n## Two\n\n### Three\n');
    expect(out).toContain('<h5>One</h5>');
    expect(out).toContain('<h6>Two</h6>');
    expect(out).toContain('<h6>Three</h6>');
    expect(out).not.toMatch(/<h[1-4]>/);
  });

  it('keeps literal tag text that only looks like a heading or image', () => {
    const out = render('`<h1>` and `<img src="a" alt="b" />`');
    expect(out).toContain('&lt;h1&gt;');
    expect(out).toContain('&lt;img src=&quot;a&quot; alt=&quot;b&quot; /&gt;');
  });

  it('renders code blocks as escaped text', () => {
    expect(render('```html file=a.html\n<script>x</script>\n```\n')).toContain(
      '<pre tabindex="0"><code class="language-html">&lt;script&gt;x&lt;/script&gt;\n</code></pre>',
    );
  });
});
