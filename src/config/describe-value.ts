import { redactSecrets } from '../project/index.js';

/** How a value read from YAML reads in a message: `"yes"`, `1.5`, `a list`, `a mapping`, `nothing`; secrets redacted. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') {
    // Redacted before the cut, so a secret is recognized whole (docs/security.md, "Secrets").
    const redacted = redactSecrets(value);
    return JSON.stringify(redacted.length > 60 ? `${redacted.slice(0, 60)}…` : redacted);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return typeof value === 'object' ? 'a mapping' : typeof value;
}
