import { foldCase } from './fold-case.js';

/** The key under which two normalized paths name the same file on a case-insensitive or normalizing filesystem. */
export function pathCollisionKey(normalizedPath: string): string {
  // Case mapping can decompose (U+01F0 uppercases to J + U+030C), so compose again afterwards.
  return foldCase(normalizedPath.normalize('NFC')).normalize('NFC');
}
