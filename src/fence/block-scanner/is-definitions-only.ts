/** CommonMark 4.7: a link label holds at most 999 characters. */
const maxLabelLength = 999;

/**
 * Whether a paragraph's text (its lines joined by `\n`, without container prefixes) consists of link reference
 * definitions only, in which case CommonMark 4.3 lets no setext underline turn it into a heading.
 */
export function isDefinitionsOnly(paragraph: string): boolean {
  let position = 0;
  const end = paragraph.length;
  while (position < end) {
    const next = definitionEnd(paragraph, position);
    if (next === -1) return isBlankFrom(paragraph, position);
    position = next;
  }
  return true;
}

/** The offset after the definition starting at `start` (past its line ending), or -1 when there is none. */
function definitionEnd(text: string, start: number): number {
  if (text.charCodeAt(start) !== 0x5b /* [ */) return -1;
  let position = start + 1;
  let hasNonSpace = false;
  for (;;) {
    if (position >= text.length) return -1;
    const code = text.charCodeAt(position);
    if (code === 0x5d /* ] */) break;
    if (code === 0x5b) return -1;
    if (code === 0x5c /* \ */ && position + 1 < text.length) position++;
    if (!isWhitespace(code)) hasNonSpace = true;
    position++;
    if (position - start - 1 > maxLabelLength) return -1;
  }
  if (!hasNonSpace) return -1;
  position++;
  if (text.charCodeAt(position) !== 0x3a /* : */) return -1;
  position = skipSpaceWithOneLineEnding(text, position + 1);
  const destinationEnd = linkDestinationEnd(text, position);
  if (destinationEnd === -1) return -1;
  const beforeTitle = destinationEnd;
  position = skipSpaceWithOneLineEnding(text, destinationEnd);
  if (position !== beforeTitle) {
    const titleEnd = linkTitleEnd(text, position);
    if (titleEnd !== -1) {
      const lineEnd = skipSpacesAndTabs(text, titleEnd);
      if (lineEnd >= text.length || text.charCodeAt(lineEnd) === 0x0a) return lineEnd + 1;
    }
  }
  // CommonMark 4.7: without a valid title the definition ends at its destination, if the line ends there.
  const lineEnd = skipSpacesAndTabs(text, beforeTitle);
  if (lineEnd >= text.length || text.charCodeAt(lineEnd) === 0x0a) return lineEnd + 1;
  return -1;
}

function linkDestinationEnd(text: string, start: number): number {
  let position = start;
  if (text.charCodeAt(position) === 0x3c /* < */) {
    position++;
    while (position < text.length) {
      const code = text.charCodeAt(position);
      if (code === 0x3e /* > */) return position + 1;
      if (code === 0x3c || code === 0x0a) return -1;
      position += code === 0x5c && position + 1 < text.length ? 2 : 1;
    }
    return -1;
  }
  let depth = 0;
  while (position < text.length) {
    const code = text.charCodeAt(position);
    if (code <= 0x20 || code === 0x7f) break;
    if (code === 0x5c && position + 1 < text.length && isAsciiPunctuation(text.charCodeAt(position + 1))) {
      position += 2;
      continue;
    }
    if (code === 0x28 /* ( */) depth++;
    else if (code === 0x29 /* ) */) {
      if (depth === 0) break;
      depth--;
    }
    position++;
  }
  if (position === start || depth !== 0) return -1;
  return position;
}

function linkTitleEnd(text: string, start: number): number {
  const open = text.charCodeAt(start);
  const close = open === 0x28 ? 0x29 : open;
  if (open !== 0x22 && open !== 0x27 && open !== 0x28) return -1;
  let position = start + 1;
  while (position < text.length) {
    const code = text.charCodeAt(position);
    if (code === close) return position + 1;
    if (open === 0x28 && code === 0x28) return -1;
    position += code === 0x5c && position + 1 < text.length ? 2 : 1;
  }
  return -1;
}

function skipSpaceWithOneLineEnding(text: string, start: number): number {
  let position = skipSpacesAndTabs(text, start);
  if (text.charCodeAt(position) === 0x0a) position = skipSpacesAndTabs(text, position + 1);
  return position;
}

function skipSpacesAndTabs(text: string, start: number): number {
  let position = start;
  while (position < text.length && (text.charCodeAt(position) === 0x20 || text.charCodeAt(position) === 0x09))
    position++;
  return position;
}

function isBlankFrom(text: string, start: number): boolean {
  for (let position = start; position < text.length; position++)
    if (!isWhitespace(text.charCodeAt(position))) return false;
  return true;
}

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a;
}

function isAsciiPunctuation(code: number): boolean {
  return (
    (code >= 0x21 && code <= 0x2f) ||
    (code >= 0x3a && code <= 0x40) ||
    (code >= 0x5b && code <= 0x60) ||
    (code >= 0x7b && code <= 0x7e)
  );
}
