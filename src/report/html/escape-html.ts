/** Markup this module made or escaped; the only thing the `markup` template inserts without escaping. */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

/** A value the `markup` template accepts: text is escaped, `SafeHtml` kept, lists joined, absent values dropped. */
export type HtmlValue = SafeHtml | string | number | false | null | undefined | readonly HtmlValue[];

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);
}

/**
 * A tagged template that escapes every interpolated value unless it is already `SafeHtml`. Not named `html`:
 * Prettier would reformat such templates as HTML, changing the page's text and its inline style and script.
 */
export function markup(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let index = 0; index < values.length; index++) {
    out += serialize(values[index]) + (strings[index + 1] ?? '');
  }
  return new SafeHtml(out);
}

/** Joins many fragments into one without escaping them again. */
export function joinHtml(parts: readonly SafeHtml[], separator = ''): SafeHtml {
  return new SafeHtml(parts.map((part) => part.value).join(separator));
}

function serialize(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (typeof value === 'string') return escapeHtml(value);
  if (typeof value === 'number') return escapeHtml(String(value));
  let out = '';
  for (const item of value) out += serialize(item);
  return out;
}
