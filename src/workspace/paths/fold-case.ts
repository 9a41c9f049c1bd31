/** Full Unicode case folding as filesystems compare names: upper then lower, so `ß` folds to `ss` and `ı` to `i`. */
export function foldCase(text: string): string {
  return text.toUpperCase().toLowerCase();
}
