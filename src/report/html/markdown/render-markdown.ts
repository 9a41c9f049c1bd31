import { micromark } from 'micromark';
import { SafeHtml } from '../escape-html.js';

// micromark's image markup, exactly: `<img src="…" alt="…" />` with an optional title; values come encoded.
const IMAGE = /<img src="([^"]*)" alt="([^"]*)"(?: title="[^"]*")? \/>/g;
const HEADING = /<(\/?)h([1-6])>/g;
// WCAG 2.1.1: a code block that scrolls must be reachable from the keyboard.
const PRE = /<pre>/g;

/**
 * Renders an agent's markdown as inert HTML: micromark's defaults escape raw HTML and drop `javascript:` URLs,
 * images become text naming their URL (an `<img src>` would be a request), headings move under the page's own.
 */
export function renderMarkdown(markdown: string, headingOffset: number): SafeHtml {
  // CommonMark 4.6/6.6: with allowDangerousHtml off, raw HTML is encoded, so any tag left is micromark's own.
  const rendered = micromark(markdown)
    .replace(IMAGE, (_image, src: string, alt: string) =>
      src === ''
        ? `<span class="md-image">[image: ${alt}]</span>`
        : `<span class="md-image">[image: ${alt}] <code>${src}</code></span>`,
    )
    .replace(HEADING, (_tag, close: string, level: string) => `<${close}h${shift(level, headingOffset)}>`)
    .replace(PRE, '<pre tabindex="0">');
  return new SafeHtml(rendered);
}

function shift(level: string, offset: number): number {
  return Math.min(6, Number(level) + offset);
}
