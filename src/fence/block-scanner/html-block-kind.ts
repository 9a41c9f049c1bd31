/** CommonMark 4.6 condition 1: raw-text elements, whose block ends only at their closing tag. */
const rawNames = ['pre', 'script', 'style', 'textarea'];

/** CommonMark 4.6 condition 6: block-level element names. */
const blockNames = new Set([
  'address',
  'article',
  'aside',
  'base',
  'basefont',
  'blockquote',
  'body',
  'caption',
  'center',
  'col',
  'colgroup',
  'dd',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'frame',
  'frameset',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'head',
  'header',
  'hr',
  'html',
  'iframe',
  'legend',
  'li',
  'link',
  'main',
  'menu',
  'menuitem',
  'nav',
  'noframes',
  'ol',
  'optgroup',
  'option',
  'p',
  'param',
  'search',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'title',
  'tr',
  'track',
  'ul',
]);

/** Longest tag name worth lowercasing for a lookup: no raw or block name is longer. */
const longestKnownName = 10;

/**
 * Which of CommonMark's seven HTML block start conditions (4.6) the text from `start` (a `<`) to `end` (the end
 * of the line) meets, or 0 for none; kind 7 is returned whether or not it may interrupt a paragraph.
 */
export function htmlBlockKind(text: string, start: number, end: number): number {
  let position = start + 1;
  const first = position < end ? text.charCodeAt(position) : -1;
  if (first === 0x21 /* ! */) {
    if (startsWith(text, position + 1, end, '--')) return 2;
    if (startsWith(text, position + 1, end, '[CDATA[')) return 5;
    return isAsciiAlpha(position + 1 < end ? text.charCodeAt(position + 1) : -1) ? 4 : 0;
  }
  if (first === 0x3f /* ? */) return 3;
  const closing = first === 0x2f; /* / */
  if (closing) position++;
  const nameStart = position;
  if (!isAsciiAlpha(position < end ? text.charCodeAt(position) : -1)) return 0;
  while (position < end && isTagNameChar(text.charCodeAt(position))) position++;
  const after = position < end ? text.charCodeAt(position) : -1;
  const name = position - nameStart <= longestKnownName ? text.slice(nameStart, position).toLowerCase() : '';
  const endsName = after === -1 || after === 0x20 || after === 0x09 || after === 0x3e; /* > */
  if (!closing && endsName && rawNames.includes(name)) return 1;
  if (
    blockNames.has(name) &&
    (endsName || (after === 0x2f && position + 1 < end && text.charCodeAt(position + 1) === 0x3e))
  )
    return 6;
  return completeTagEnd(text, position, end, closing) ? 7 : 0;
}

/** Whether the rest of a tag after its name (from `position`) completes it, with only spaces or tabs after. */
function completeTagEnd(text: string, position: number, end: number, closing: boolean): boolean {
  if (!closing) {
    for (;;) {
      const spaceStart = position;
      while (position < end && isSpaceOrTab(text.charCodeAt(position))) position++;
      if (position === spaceStart) break;
      const code = position < end ? text.charCodeAt(position) : -1;
      if (!isAttributeNameStart(code)) break;
      position++;
      while (position < end && isAttributeNameChar(text.charCodeAt(position))) position++;
      let valueAt = position;
      while (valueAt < end && isSpaceOrTab(text.charCodeAt(valueAt))) valueAt++;
      if (valueAt >= end || text.charCodeAt(valueAt) !== 0x3d /* = */) continue;
      valueAt++;
      while (valueAt < end && isSpaceOrTab(text.charCodeAt(valueAt))) valueAt++;
      const quote = valueAt < end ? text.charCodeAt(valueAt) : -1;
      if (quote === 0x22 || quote === 0x27) {
        let close = valueAt + 1;
        while (close < end && text.charCodeAt(close) !== quote) close++;
        if (close >= end) return false;
        position = close + 1;
      } else {
        const valueStart = valueAt;
        while (valueAt < end && isUnquotedValueChar(text.charCodeAt(valueAt))) valueAt++;
        if (valueAt === valueStart) return false;
        position = valueAt;
      }
    }
  } else {
    while (position < end && isSpaceOrTab(text.charCodeAt(position))) position++;
  }
  if (!closing && position < end && text.charCodeAt(position) === 0x2f /* / */) position++;
  if (position >= end || text.charCodeAt(position) !== 0x3e /* > */) return false;
  position++;
  while (position < end && isSpaceOrTab(text.charCodeAt(position))) position++;
  return position === end;
}

/** Whether an HTML block of kind 1-5 ends on the line from `start` to `end` (CommonMark 4.6 end conditions). */
export function htmlBlockEnds(kind: number, text: string, start: number, end: number): boolean {
  switch (kind) {
    case 1:
      return containsRawClosingTag(text, start, end);
    case 2:
      return contains(text, start, end, '-->');
    case 3:
      return contains(text, start, end, '?>');
    case 4:
      return contains(text, start, end, '>');
    case 5:
      return contains(text, start, end, ']]>');
    default:
      return false;
  }
}

function containsRawClosingTag(text: string, start: number, end: number): boolean {
  for (let position = start; position + 1 < end; position++) {
    if (text.charCodeAt(position) !== 0x3c || text.charCodeAt(position + 1) !== 0x2f) continue;
    for (const name of rawNames) {
      const nameEnd = position + 2 + name.length;
      if (
        nameEnd < end &&
        text.charCodeAt(nameEnd) === 0x3e &&
        text.slice(position + 2, nameEnd).toLowerCase() === name
      )
        return true;
    }
  }
  return false;
}

/** Bounded search, so a line never makes the scan look past its own end. */
function contains(text: string, start: number, end: number, needle: string): boolean {
  const last = end - needle.length;
  const first = needle.charCodeAt(0);
  for (let position = start; position <= last; position++) {
    if (text.charCodeAt(position) === first && startsWith(text, position, end, needle)) return true;
  }
  return false;
}

function startsWith(text: string, position: number, end: number, prefix: string): boolean {
  if (end - position < prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) {
    if (text.charCodeAt(position + index) !== prefix.charCodeAt(index)) return false;
  }
  return true;
}

function isSpaceOrTab(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

function isAsciiAlpha(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function isAsciiDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isTagNameChar(code: number): boolean {
  return isAsciiAlpha(code) || isAsciiDigit(code) || code === 0x2d;
}

function isAttributeNameStart(code: number): boolean {
  return isAsciiAlpha(code) || code === 0x5f || code === 0x3a; /* _ : */
}

function isAttributeNameChar(code: number): boolean {
  return isAttributeNameStart(code) || isAsciiDigit(code) || code === 0x2e || code === 0x2d; /* . - */
}

/** CommonMark 6.6: an unquoted attribute value has no spaces, tabs, line endings, " ' = < > or `. */
function isUnquotedValueChar(code: number): boolean {
  return !(
    code === 0x20 ||
    code === 0x09 ||
    code === 0x22 ||
    code === 0x27 ||
    code === 0x3d ||
    code === 0x3c ||
    code === 0x3e ||
    code === 0x60 ||
    code === 0x0a ||
    code === 0x0d
  );
}
