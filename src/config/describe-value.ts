import { quoteSourceText } from './quote-source-text.js';

/**
 * How a value read from YAML reads in a message: `"yes"`, `1.5`, `a list`, `a mapping`, `nothing`; a string
 * shows its first line only, secrets redacted, cut at 60 characters.
 */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return quoteSourceText(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return typeof value === 'object' ? 'a mapping' : typeof value;
}
